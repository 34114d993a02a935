package io.kvrouter.config;

/**
 * How Dynamo's KV events and load reports travel on NATS ({@code --nats-event-format}); {@code
 * docs/interop.md} §10.1 and §2.4.
 */
public enum NatsEventFormat implements Named {
  /**
   * Dynamo v1.5 and later: every message is an rmp-serde {@code EventEnvelope} (publisher id,
   * sequence, time, topic, msgpack payload) on an endpoint-scoped subject, {@code
   * namespace.NS.component.C.endpoint.E.kv-events} for a batch of {@code RouterEvent}s and {@code
   * ….kv_metrics} for an {@code ActiveLoad}; no JetStream.
   */
  ENVELOPE("envelope"),
  /**
   * Dynamo v1.4 and earlier: one {@code RouterEvent} as JSON per message on {@code
   * namespace.NS.component.C.kv_events} (optionally kept in a JetStream stream), load as JSON on
   * {@code namespace.NS.kv_metrics}.
   */
  JSON("json");

  private final String configName;

  NatsEventFormat(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
