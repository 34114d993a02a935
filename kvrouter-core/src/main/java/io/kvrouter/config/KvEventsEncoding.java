package io.kvrouter.config;

/** The msgpack layout a simulated worker writes vLLM's KV events in ({@code --vllm-encoding}). */
public enum KvEventsEncoding implements Named {
  /** Events as maps, as vLLM writes them since mid-2026. */
  MAP("map"),
  /** Events as arrays, as earlier vLLM releases wrote them. */
  ARRAY("array");

  private final String configName;

  KvEventsEncoding(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
