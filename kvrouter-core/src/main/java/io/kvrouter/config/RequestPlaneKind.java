package io.kvrouter.config;

/** Which request plane carries requests to workers ({@code --request-plane}). */
public enum RequestPlaneKind implements Named {
  TCP("tcp"),
  NATS("nats"),
  /** Dynamo's HTTP request plane (Dynamo builds from late 2025 to May 2026). */
  HTTP("http");

  private final String configName;

  RequestPlaneKind(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
