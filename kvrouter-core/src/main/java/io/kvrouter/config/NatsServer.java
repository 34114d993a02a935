package io.kvrouter.config;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A NATS server and how to reach it ({@code NATS_SERVER}, {@code NATS_AUTH_*}, {@code NATS_TLS_*}).
 *
 * <p>TLS follows Dynamo's rule: a {@code tls://} URL speaks TLS, checked against the JVM's trusted
 * CAs unless {@code caCertPath} names the CA; {@code insecure} checks nothing; a client certificate
 * ({@code clientCertPath}, {@code clientKeyPath}) answers a server that asks for one. Any of these
 * needs {@code tls://} URLs ({@link #checkTls}, when a connection is made), so a plain {@code
 * nats://} URL always means plain text.
 *
 * @param url the server's URL, {@code nats://HOST:PORT} or {@code tls://HOST:PORT}, or several
 *     separated by commas (one cluster), all of one scheme
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

  /** The URLs of the list, trimmed. */
  public List<String> urls() {
    return Arrays.stream(url.split(",")).map(String::trim).filter(u -> !u.isEmpty()).toList();
  }

  /** Whether the connections speak TLS: every URL is {@code tls://}. */
  public boolean tls() {
    List<String> urls = urls();
    return !urls.isEmpty() && urls.stream().allMatch(NatsServer::isTls);
  }

  private static boolean isTls(String url) {
    return url.regionMatches(true, 0, "tls://", 0, 6);
  }

  /**
   * Refuses TLS settings with plain URLs, and a list that mixes {@code tls://} with other schemes.
   *
   * @throws IllegalArgumentException naming the settings
   */
  public void checkTls() {
    List<String> urls = urls();
    if (!tls() && urls.stream().anyMatch(NatsServer::isTls)) {
      throw new IllegalArgumentException(
          "the NATS URLs " + this + " mix tls:// with plain ones; give one scheme");
    }
    if (!tls() && (caCertPath != null || insecure || clientCertPath != null)) {
      throw new IllegalArgumentException(
          "--nats-tls-ca-cert-path, --nats-tls-insecure and --nats-tls-client-cert-path (NATS_TLS_*)"
              + " need tls:// NATS URLs, as Dynamo requires; --nats-server is "
              + this);
    }
  }

  /** The URLs without any user or password written in them, for logs and errors. */
  @Override
  public String toString() {
    return redact(url);
  }

  /** {@code text} with every {@code //USER:PASSWORD@} of a URL in it cut to {@code //}. */
  public static String redact(String text) {
    return text == null ? null : CREDENTIALS.matcher(text).replaceAll("//");
  }

  private static final Pattern CREDENTIALS = Pattern.compile("//[^/@,\\s\\]\\[]*@");
}
