package io.kvrouter.common;

/**
 * The API of a plain engine's HTTP server that a worker is sent requests on: named in the worker's
 * configuration ({@code engine=}) and carried by its endpoint, so shared by both.
 */
public enum PlainEngine {
  /** {@code vllm serve}: token-in {@code POST /v1/completions}. */
  VLLM("vllm"),
  /** SGLang's server: {@code POST /generate} with {@code input_ids}. */
  SGLANG("sglang");

  private final String configName;

  PlainEngine(String configName) {
    this.configName = configName;
  }

  public String configName() {
    return configName;
  }

  /** The engine named {@code name}; fails naming the choices. */
  public static PlainEngine of(String name) {
    for (PlainEngine engine : values()) {
      if (engine.configName.equals(name)) {
        return engine;
      }
    }
    throw new IllegalArgumentException("engine '" + name + "' is not vllm or sglang");
  }
}
