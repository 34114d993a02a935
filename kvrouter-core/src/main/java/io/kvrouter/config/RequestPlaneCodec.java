package io.kvrouter.config;

/**
 * The payload codec a worker advertises ({@code codec=} in {@code --worker}): Dynamo's {@code
 * request_plane_codec}, which a Dynamo worker sets from its {@code DYN_REQUEST_PLANE_CODEC}.
 */
public enum RequestPlaneCodec implements Named {
  JSON("json"),
  MSGPACK("msgpack");

  private final String configName;

  RequestPlaneCodec(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
