package io.kvrouter.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A NATS server and how to reach it ({@code NATS_SERVER}, {@code NATS_AUTH_*}, {@code NATS_TLS_*}).
 *
 * <p>TLS follows Dynamo's rule: a {@code tls://} URL speaks TLS, checked against the JVM's trusted
 * CAs unless {@code caCertPath} names the CA; {@code insecure} checks nothing; a client certificate
 * ({@code clientCertPath}, {@code clientKeyPath}) answers a server that asks for one. Any of these
 * needs a {@code tls://} URL (checked by the config loader), so a plain {@code nats://} URL always
 * means plain text.
 *
 * @param url one server's URL, {@code nats://HOST:PORT} or {@code tls://HOST:PORT}
 */
public record NatsServer(
    String url,
    NatsAuth auth,
    Path caCertPath,
    boolean insecure,
    Path clientCertPath,
    Path clientKeyPath) {

  public NatsServer {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(auth, "auth");
    if ((clientCertPath == null) != (clientKeyPath == null)) {
      throw new IllegalArgumentException("a NATS client certificate needs its key");
    }
  }

  /** The server at {@code url}, anonymous, with no TLS settings of its own. */
  public static NatsServer plain(String url) {
    return new NatsServer(url, NatsAuth.NONE, null, false, null, null);
  }

  /** Another server reached the same way: the same credentials and TLS settings. */
  public NatsServer withUrl(String otherUrl) {
    return new NatsServer(otherUrl, auth, caCertPath, insecure, clientCertPath, clientKeyPath);
  }

  /** The same server reached with other credentials. */
  public NatsServer withAuth(NatsAuth otherAuth) {
    return new NatsServer(url, otherAuth, caCertPath, insecure, clientCertPath, clientKeyPath);
  }

  /** Whether the connection speaks TLS. */
  public boolean tls() {
    return url.regionMatches(true, 0, "tls://", 0, 6);
  }

  /** The URL without any user or password written in it, for logs and errors. */
  @Override
  public String toString() {
    int scheme = url.indexOf("://");
    int at = url.lastIndexOf('@');
    return scheme < 0 || at < scheme ? url : url.substring(0, scheme + 3) + url.substring(at + 1);
  }
}
