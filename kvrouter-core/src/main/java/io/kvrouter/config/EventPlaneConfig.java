package io.kvrouter.config;

import java.util.Objects;

/**
 * Where the router follows the workers' KV events.
 *
 * @param kind {@code --event-plane}
 * @param natsServer {@code NATS_SERVER}, used with {@link EventPlaneKind#NATS}
 * @param namespace {@code --namespace}: the {@code ns} of {@code namespace.{ns}.component.{comp}}
 * @param component {@code --component}: the {@code comp} of that subject
 * @param endpoint {@code --endpoint}: the endpoint of Dynamo v1.5's endpoint-scoped subjects
 * @param natsFormat {@code --nats-event-format}: Dynamo v1.5's envelopes or v1.4's JSON
 * @param durable {@code --durable-kv-events}: follow the subject's JetStream stream with a durable
 *     consumer named {@code durableName} instead of a core subscription
 * @param maxMessageBytes {@code --kv-events-max-message-bytes}: the largest event message (ZMQ
 *     frame, NATS payload) taken from a publisher
 * @param kafka where the Kafka plane is, used with {@link EventPlaneKind#KAFKA}
 */
public record EventPlaneConfig(
    EventPlaneKind kind,
    NatsServer natsServer,
    String namespace,
    String component,
    String endpoint,
    NatsEventFormat natsFormat,
    boolean durable,
    String durableName,
    int maxMessageBytes,
    KafkaConfig kafka) {

  /**
   * 16 MiB: vLLM publishes one batch per engine step, and a step that stores or evicts as many
   * blocks as a large {@code max_num_batched_tokens} (64k tokens) or a big eviction (100k blocks)
   * makes a batch of a few MiB at most; NATS refuses payloads above 1 MiB by default.
   */
  public static final int DEFAULT_MAX_MESSAGE_BYTES = 16 << 20;

  public EventPlaneConfig {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(natsServer, "natsServer");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(component, "component");
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(natsFormat, "natsFormat");
    Objects.requireNonNull(durableName, "durableName");
    Objects.requireNonNull(kafka, "kafka");
    if (maxMessageBytes < 1) {
      throw new IllegalArgumentException("maxMessageBytes must be positive: " + maxMessageBytes);
    }
  }

  /** The same plane, for the workers of endpoint {@code namespace/component/endpoint}. */
  public EventPlaneConfig withScope(String namespace, String component, String endpoint) {
    return new EventPlaneConfig(
        kind,
        natsServer,
        namespace,
        component,
        endpoint,
        natsFormat,
        durable,
        durableName,
        maxMessageBytes,
        kafka);
  }

  /** ZMQ, with Dynamo's NATS defaults for the rest. */
  public static final EventPlaneConfig DEFAULTS =
      new EventPlaneConfig(
          EventPlaneKind.ZMQ,
          NatsServer.plain("nats://localhost:4222"),
          "dynamo",
          "backend",
          "generate",
          NatsEventFormat.ENVELOPE,
          false,
          "kvrouter",
          DEFAULT_MAX_MESSAGE_BYTES,
          KafkaConfig.DEFAULTS);
}
