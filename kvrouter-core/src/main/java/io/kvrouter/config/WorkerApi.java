package io.kvrouter.config;

/**
 * What a {@code router.jar worker} serves requests on ({@code --api}): Dynamo's request plane, the
 * token-in HTTP API of a {@code vllm serve}, or an SGLang server's.
 */
public enum WorkerApi implements Named {
  DYNAMO("dynamo"),
  OPENAI("openai"),
  SGLANG("sglang");

  private final String configName;

  WorkerApi(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
