package io.kvrouter.config;

/**
 * How a worker sends a response back to the router over Dynamo's TCP request plane: {@code
 * call-home}, one connection per response dialled back by the worker ({@code tcp_server}, what
 * Dynamo v1.5 workers speak), or {@code mux}, logical streams on the worker's few pooled
 * connections ({@code tcp_response_mux_v1}, mandatory in Dynamo's latest main). See docs/interop.md
 * §10.7.
 */
public enum ResponseStreamKind implements Named {
  CALL_HOME("call-home"),
  MUX("mux");

  private final String configName;

  ResponseStreamKind(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
