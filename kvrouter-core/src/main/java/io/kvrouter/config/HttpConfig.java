package io.kvrouter.config;

import java.time.Duration;
import java.util.Objects;

/**
 * The OpenAI HTTP server: where it listens, the largest body it reads, how long requests in flight
 * may take to finish when the process shuts down, the status it answers when every worker is busy,
 * and how long it waits for clients and how many it serves ({@link ConnectionLimits}).
 *
 * @param tls the server's certificate and key: HTTPS only (HTTP/1.1 and HTTP/2 by ALPN); null for
 *     plain HTTP
 * @param cors the browser origins allowed to call the OpenAI routes ({@code --allowed-origins})
 */
public record HttpConfig(
    String host,
    int port,
    long bodyLimitBytes,
    Duration gracefulShutdownTimeout,
    int busyStatusCode,
    ConnectionLimits connections,
    TlsFiles tls,
    CorsOrigins cors) {

  /** The status answered when every worker is busy, unless configured. */
  public static final int DEFAULT_BUSY_STATUS_CODE = 503;

  public HttpConfig {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(gracefulShutdownTimeout, "gracefulShutdownTimeout");
    Objects.requireNonNull(connections, "connections");
    cors = cors == null ? CorsOrigins.NONE : cors;
    if (bodyLimitBytes < 1) {
      throw new IllegalArgumentException("bodyLimitBytes must be positive");
    }
    if (busyStatusCode < 400 || busyStatusCode > 599) {
      throw new IllegalArgumentException("busyStatusCode must be an HTTP error status");
    }
  }

  /** Plain HTTP. */
  public HttpConfig(
      String host,
      int port,
      long bodyLimitBytes,
      Duration gracefulShutdownTimeout,
      int busyStatusCode,
      ConnectionLimits connections) {
    this(host, port, bodyLimitBytes, gracefulShutdownTimeout, busyStatusCode, connections, null);
  }

  /** Without cross-origin access. */
  public HttpConfig(
      String host,
      int port,
      long bodyLimitBytes,
      Duration gracefulShutdownTimeout,
      int busyStatusCode,
      ConnectionLimits connections,
      TlsFiles tls) {
    this(
        host,
        port,
        bodyLimitBytes,
        gracefulShutdownTimeout,
        busyStatusCode,
        connections,
        tls,
        CorsOrigins.NONE);
  }

  /** The same settings on another port. */
  public HttpConfig withPort(int newPort) {
    return new HttpConfig(
        host,
        newPort,
        bodyLimitBytes,
        gracefulShutdownTimeout,
        busyStatusCode,
        connections,
        tls,
        cors);
  }
}
