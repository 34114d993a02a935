package io.kvrouter.config;

/** What carries KV events from workers to the router ({@code --event-plane}). */
public enum EventPlaneKind implements Named {
  /** vLLM's ZMQ PUB socket per worker, with its replay socket. */
  ZMQ("zmq"),
  /** Dynamo's RouterEvent JSON on one NATS subject per component, recovered by worker query. */
  NATS("nats"),
  /**
   * Dynamo's msgpack RouterEvent batches on a Kafka topic per endpoint, keyed by worker so that
   * each worker's events stay in order in one partition; recovered by worker query.
   */
  KAFKA("kafka");

  private final String configName;

  EventPlaneKind(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
