package io.kvrouter.config;

/** What carries KV events from workers to the router ({@code --event-plane}). */
public enum EventPlaneKind implements Named {
  /** vLLM's ZMQ PUB socket per worker, with its replay socket. */
  ZMQ("zmq"),
  /** Dynamo's RouterEvent JSON on one NATS subject per component, recovered by worker query. */
  NATS("nats");

  private final String configName;

  EventPlaneKind(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
