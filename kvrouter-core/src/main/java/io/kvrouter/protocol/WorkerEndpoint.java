package io.kvrouter.protocol;

import java.util.Objects;

/**
 * Where a worker serves the request plane: {@code host:port} plus the opaque routing path that
 * Dynamo puts after the first {@code /} of an instance's TCP address.
 */
public record WorkerEndpoint(String workerId, String host, int port, String path) {

  /** The path Dynamo's classic workers register their generate endpoint under. */
  public static final String DEFAULT_PATH = "generate";

  public WorkerEndpoint {
    Objects.requireNonNull(workerId, "workerId");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(path, "path");
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
  }

  /**
   * The same worker's endpoint named {@code name}: the path with its last {@code /}-separated
   * segment, the endpoint's name in Dynamo's paths ({@code generate} or {@code
   * {instance_hex}/generate}), replaced by {@code name}.
   */
  public WorkerEndpoint sibling(String name) {
    int slash = path.lastIndexOf('/');
    return new WorkerEndpoint(workerId, host, port, path.substring(0, slash + 1) + name);
  }

  /** {@code host:port/path}, the form Dynamo publishes in discovery. */
  public String address() {
    return host + ":" + port + "/" + path;
  }
}
