package io.kvrouter.config;

import java.util.Objects;

/**
 * Where the router follows the workers' KV events.
 *
 * @param kind {@code --event-plane}
 * @param natsServer {@code NATS_SERVER}, used with {@link EventPlaneKind#NATS}
 * @param namespace {@code --namespace}: the {@code ns} of {@code namespace.{ns}.component.{comp}}
 * @param component {@code --component}: the {@code comp} of that subject
 * @param durable {@code --durable-kv-events}: follow the subject's JetStream stream with a durable
 *     consumer named {@code durableName} instead of a core subscription
 */
public record EventPlaneConfig(
    EventPlaneKind kind,
    String natsServer,
    String namespace,
    String component,
    boolean durable,
    String durableName) {

  public EventPlaneConfig {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(natsServer, "natsServer");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(component, "component");
    Objects.requireNonNull(durableName, "durableName");
  }

  /** ZMQ, with Dynamo's NATS defaults for the rest. */
  public static final EventPlaneConfig DEFAULTS =
      new EventPlaneConfig(
          EventPlaneKind.ZMQ, "nats://localhost:4222", "dynamo", "backend", false, "kvrouter");
}
