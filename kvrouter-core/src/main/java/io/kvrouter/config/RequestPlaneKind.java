package io.kvrouter.config;

/** Which request plane carries requests to workers ({@code --request-plane}). */
public enum RequestPlaneKind implements Named {
  TCP("tcp"),
  NATS("nats");

  private final String configName;

  RequestPlaneKind(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
