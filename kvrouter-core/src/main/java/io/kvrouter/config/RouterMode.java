package io.kvrouter.config;

/** How the router picks a worker for each request ({@code --router-mode}). */
public enum RouterMode implements Named {
  ROUND_ROBIN("round-robin"),
  RANDOM("random"),
  KV("kv");

  private final String configName;

  RouterMode(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
