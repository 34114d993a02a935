package io.kvrouter.config;

/** What a worker's ZMQ KV event publisher speaks ({@code events-format=} in {@code --worker}). */
public enum KvEventsFormat implements Named {
  /**
   * vLLM's: a PUB socket per data-parallel rank (rank r on the base ports + r) sending msgpack
   * event batches, with a ROUTER replay socket.
   */
  VLLM("vllm"),
  /**
   * Dynamo's ZMQ event plane: one PUB socket per worker sending enveloped msgpack {@code
   * RouterEvent}s of every rank, recovered by query over the request plane.
   */
  DYNAMO("dynamo");

  private final String configName;

  KvEventsFormat(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
