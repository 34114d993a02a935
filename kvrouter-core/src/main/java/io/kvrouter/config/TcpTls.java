package io.kvrouter.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * TLS on Dynamo's TCP request plane ({@code DYN_TCP_TLS_*}, Dynamo v1.5's {@code
 * lib/runtime/src/config/environment_names.rs}, module {@code tcp_response_stream::tls}).
 *
 * <p>Every process is a TCP server and a client: the router dials workers to send requests and
 * accepts their response streams; a worker accepts requests and dials the router back. The two
 * roles are set apart, as Dynamo sets them:
 *
 * <ul>
 *   <li><b>server</b>: with {@code certPath} and {@code keyPath} the listener speaks TLS only; with
 *       {@code clientCaCertPath} too it asks every client for a certificate signed by that CA and
 *       refuses the handshake without one (mutual TLS);
 *   <li><b>client</b>: with {@code caCertPath} (or {@code insecure}) connections are opened with
 *       TLS, and the server's certificate must chain to that CA and name the host dialled (or
 *       {@code serverName}); {@code insecure} checks nothing. With {@code clientCertPath} and
 *       {@code clientKeyPath} the client presents that certificate.
 * </ul>
 *
 * A server certificate alone leaves the client role in plain text, as in Dynamo: set both sides on
 * every process (each logs a warning otherwise).
 *
 * @param handshakeTimeout how long a TLS handshake may take ({@code
 *     DYN_TCP_TLS_HANDSHAKE_TIMEOUT_SECS}, 3 s)
 */
public record TcpTls(
    Path certPath,
    Path keyPath,
    Path clientCaCertPath,
    Path caCertPath,
    boolean insecure,
    String serverName,
    Path clientCertPath,
    Path clientKeyPath,
    Duration handshakeTimeout) {

  public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(3);

  /** Plain text both ways. */
  public static final TcpTls NONE =
      new TcpTls(null, null, null, null, false, null, null, null, DEFAULT_HANDSHAKE_TIMEOUT);

  public TcpTls {
    Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
    if ((certPath == null) != (keyPath == null)) {
      throw new IllegalArgumentException("a server certificate needs its key, and the reverse");
    }
    if ((clientCertPath == null) != (clientKeyPath == null)) {
      throw new IllegalArgumentException("a client certificate needs its key, and the reverse");
    }
    if (clientCaCertPath != null && certPath == null) {
      throw new IllegalArgumentException("client certificates can only be asked by a TLS server");
    }
  }

  /** Whether the listeners speak TLS. */
  public boolean server() {
    return certPath != null;
  }

  /** Whether the listeners require client certificates. */
  public boolean mutual() {
    return clientCaCertPath != null;
  }

  /** Whether outgoing connections speak TLS. */
  public boolean client() {
    return caCertPath != null || insecure || clientCertPath != null;
  }
}
