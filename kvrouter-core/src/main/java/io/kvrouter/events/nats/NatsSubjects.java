package io.kvrouter.events.nats;

import io.kvrouter.common.Slug;
import java.util.Objects;

/**
 * Dynamo's names on NATS for KV events, so a Dynamo worker and this router meet on the same subject
 * and JetStream stream ({@code docs/interop.md} §2.4; upstream {@code lib/runtime/src/slug.rs},
 * {@code lib/llm/src/kv_router.rs}).
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

  /** {@code namespace.{ns}.component.{comp}.kv_events}: where workers publish KV events. */
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
