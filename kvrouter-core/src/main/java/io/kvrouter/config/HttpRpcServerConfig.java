package io.kvrouter.config;

import java.util.Objects;

/**
 * Where a worker serves Dynamo's HTTP request plane ({@code --request-plane http}), with Dynamo's
 * names and defaults.
 *
 * @param host the address it binds and advertises ({@code DYN_HTTP_RPC_HOST}); {@code null} for
 *     this machine's address, as Dynamo resolves it
 * @param port its port ({@code DYN_HTTP_RPC_PORT}, 8888; 0 for a free one, advertised as bound)
 * @param rootPath the path its endpoints are under ({@code DYN_HTTP_RPC_ROOT_PATH}, {@code
 *     /v1/rpc}): endpoint {@code generate} is {@code POST /v1/rpc/generate}
 */
public record HttpRpcServerConfig(String host, int port, String rootPath) {

  public static final int DEFAULT_PORT = 8888;
  public static final String DEFAULT_ROOT_PATH = "/v1/rpc";

  public static final HttpRpcServerConfig DEFAULTS =
      new HttpRpcServerConfig(null, DEFAULT_PORT, DEFAULT_ROOT_PATH);

  public HttpRpcServerConfig {
    Objects.requireNonNull(rootPath, "rootPath");
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
    if (!rootPath.startsWith("/") || rootPath.endsWith("/") || rootPath.contains("?")) {
      throw new IllegalArgumentException(
          "the root path must start with / and not end with one: " + rootPath);
    }
  }
}
