package io.kvrouter.config;

/** The cost the KV router minimises ({@code --router-kv-cost}). */
public enum KvCost implements Named {
  /** Dynamo's: {@code overlap_score_weight · prefill_blocks + decode_blocks}. */
  DYNAMO("dynamo"),
  /**
   * kvrouter's: the predicted time to first token, plus the delay the request's uncached prefill
   * imposes on those queued behind it (see {@code routing.schedule.TtftModel}).
   */
  PREDICTED_TTFT("predicted-ttft");

  private final String configName;

  KvCost(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
