package io.kvrouter.events.nats;

import io.kvrouter.common.Slug;
import io.kvrouter.config.NatsEventFormat;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec;
import io.kvrouter.protocol.dynamo.WorkerLoadCodec;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Dynamo's names on NATS for KV events, so a Dynamo worker and this router meet on the same subject
 * ({@code docs/interop.md} §10.1 and §2.4).
 *
 * <p>Dynamo v1.5 and later ({@link #endpointTopic}; upstream {@code
 * lib/runtime/src/discovery/mod.rs} {@code EventScope::subject}, read at {@code
 * transports/event_plane/mod.rs} @0e8f3009):
 *
 * <ul>
 *   <li>an endpoint's events go on {@code namespace.{ns}.component.{comp}.endpoint.{ep}.{topic}},
 *       topic {@code kv-events} for KV events and {@code kv_metrics} for load;
 *   <li>every segment is percent-encoded: a byte outside {@code A-Z a-z 0-9 - _} becomes {@code
 *       %XX} (uppercase hex of the UTF-8 byte), so names pass through unchanged in practice.
 * </ul>
 *
 * <p>Dynamo v1.4 and earlier ({@link #kvEvents}; upstream {@code lib/runtime/src/slug.rs}, {@code
 * lib/llm/src/kv_router.rs}):
 *
 * <ul>
 *   <li>a component's subject is {@code namespace.{ns}.component.{comp}}, and its KV events go on
 *       {@code namespace.{ns}.component.{comp}.kv_events};
 *   <li>in durable mode ({@code --durable-kv-events}) they are kept in a JetStream stream named
 *       {@code slug(subject)} with every {@code _} turned into {@code -}, because stream names may
 *       not contain {@code .}.
 * </ul>
 */
public final class NatsSubjects {
  /** The suffix Dynamo puts after a component's subject for KV events. */
  public static final String KV_EVENTS = "kv_events";

  /** Dynamo's default server when {@code NATS_SERVER} is unset. */
  public static final String DEFAULT_SERVER = "nats://localhost:4222";

  private NatsSubjects() {}

  /** {@code namespace.{ns}.component.{comp}}. */
  public static String component(String namespace, String component) {
    return "namespace."
        + token(namespace, "namespace")
        + ".component."
        + token(component, "component");
  }

  /**
   * {@code namespace.{ns}.component.{comp}.endpoint.{ep}.{topic}}, each segment percent-encoded:
   * where Dynamo v1.5's endpoint-scoped publishers send.
   */
  public static String endpointTopic(
      String namespace, String component, String endpoint, String topic) {
    return "namespace."
        + percentEncoded(token(namespace, "namespace"))
        + ".component."
        + percentEncoded(token(component, "component"))
        + ".endpoint."
        + percentEncoded(token(endpoint, "endpoint"))
        + "."
        + percentEncoded(Objects.requireNonNull(topic, "topic"));
  }

  /** Where a worker's KV events go in {@code format}: v1.5's endpoint topic or v1.4's subject. */
  public static String kvEvents(
      NatsEventFormat format, String namespace, String component, String endpoint) {
    return format == NatsEventFormat.ENVELOPE
        ? endpointTopic(namespace, component, endpoint, DynamoMsgpackCodec.KV_EVENTS_TOPIC)
        : kvEvents(namespace, component);
  }

  /** Where a worker's load reports go in {@code format}. */
  public static String loads(
      NatsEventFormat format, String namespace, String component, String endpoint) {
    return format == NatsEventFormat.ENVELOPE
        ? endpointTopic(namespace, component, endpoint, DynamoMsgpackCodec.KV_METRICS_TOPIC)
        : WorkerLoadCodec.subject(namespace);
  }

  /**
   * A subject segment as Dynamo writes it: bytes of the UTF-8 form outside {@code A-Z a-z 0-9 - _}
   * become {@code %XX}.
   */
  static String percentEncoded(String segment) {
    StringBuilder out = new StringBuilder(segment.length());
    for (byte b : segment.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      boolean plain =
          (c >= 'A' && c <= 'Z')
              || (c >= 'a' && c <= 'z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '_';
      if (plain) {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
      }
    }
    return out.toString();
  }

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  /** {@code namespace.{ns}.component.{comp}.kv_events}: where v1.4 workers publish KV events. */
  public static String kvEvents(String namespace, String component) {
    return component(namespace, component) + "." + KV_EVENTS;
  }

  /**
   * Dynamo's slug: lowercase, then every character outside {@code a-z 0-9 - _} becomes {@code _};
   * leading {@code _} are dropped (as {@code Slug::new} does).
   */
  public static String slug(String s) {
    return Slug.of(s);
  }

  /** The JetStream stream for a subject: {@code slug(subject)} with {@code _} → {@code -}. */
  public static String streamName(String subject) {
    return slug(subject).replace('_', '-');
  }

  /** The stream of a component's KV events. */
  public static String kvEventsStream(String namespace, String component) {
    return streamName(kvEvents(namespace, component));
  }

  /** Whether {@code name} is one subject token: not empty, no dots, wildcards or whitespace. */
  public static boolean isToken(String name) {
    return name != null
        && !name.isEmpty()
        && name.chars()
            .noneMatch(c -> c == '.' || c == '*' || c == '>' || Character.isWhitespace(c));
  }

  private static String token(String name, String what) {
    Objects.requireNonNull(name, what);
    if (!isToken(name)) {
      throw new IllegalArgumentException(
          what
              + " must be one NATS subject token (no '.', '*', '>' or whitespace): '"
              + name
              + "'");
    }
    return name;
  }
}
