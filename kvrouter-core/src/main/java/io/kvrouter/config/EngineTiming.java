package io.kvrouter.config;

/** How a simulated engine paces its requests ({@code --timing-model}). */
public enum EngineTiming implements Named {
  /** A fixed time to first token, then a fixed delay between tokens, whatever the load. */
  FIXED("fixed"),
  /**
   * The simulator's scheduler and Dynamo mocker's step times: requests queue and are batched, so
   * time to first token grows with the uncached prompt and the queue.
   */
  MOCKER("mocker");

  private final String configName;

  EngineTiming(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
