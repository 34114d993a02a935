package io.kvrouter.config;

/**
 * Where workers and model cards are found ({@code --discovery-backend}, Dynamo's {@code
 * DYN_DISCOVERY_BACKEND}): {@code static} is kvrouter's own, the {@code --worker} list (a worker
 * registers nowhere); {@code etcd} is Dynamo's key-value store discovery on etcd; {@code
 * kubernetes} is Dynamo's Kubernetes discovery ({@code DynamoWorkerMetadata} resources joined with
 * ready EndpointSlice entries).
 */
public enum DiscoveryBackend implements Named {
  STATIC("static"),
  ETCD("etcd"),
  KUBERNETES("kubernetes");

  private final String configName;

  DiscoveryBackend(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
