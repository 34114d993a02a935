package io.kvrouter.config;

import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How to reach etcd, with Dynamo's knobs ({@code lib/runtime/src/transports/etcd.rs} @6a7d2f73,
 * docs/notes/dynamo-discovery.md §4): {@code ETCD_ENDPOINTS}, {@code ETCD_AUTH_USERNAME} + {@code
 * ETCD_AUTH_PASSWORD}, {@code ETCD_AUTH_CA} and {@code ETCD_AUTH_CLIENT_CERT} + {@code
 * ETCD_AUTH_CLIENT_KEY}. Dynamo passes the TLS values straight to {@code from_pem}, so they are PEM
 * contents there while its docs call them paths: each is taken as PEM when it starts with {@code
 * -----BEGIN}, else as a file's path.
 *
 * @param endpoints etcd's client URLs, {@code http://} or {@code https://}
 * @param username with {@code password}: etcd's user authentication
 * @param password see {@code username}
 * @param ca the CA that signed etcd's server certificate (TLS)
 * @param clientCert with {@code clientKey}: the client certificate (mutual TLS)
 * @param clientKey see {@code clientCert}
 */
public record EtcdConfig(
    List<URI> endpoints,
    Optional<String> username,
    Optional<String> password,
    Optional<String> ca,
    Optional<String> clientCert,
    Optional<String> clientKey) {

  /** Dynamo's default: {@code http://localhost:2379}. */
  public static final String DEFAULT_ENDPOINTS = "http://localhost:2379";

  public EtcdConfig {
    endpoints = List.copyOf(endpoints);
    if (endpoints.isEmpty()) {
      throw new IllegalArgumentException("etcd needs at least one endpoint");
    }
    Objects.requireNonNull(username, "username");
    Objects.requireNonNull(password, "password");
    Objects.requireNonNull(ca, "ca");
    Objects.requireNonNull(clientCert, "clientCert");
    Objects.requireNonNull(clientKey, "clientKey");
    if (username.isPresent() != password.isPresent()) {
      throw new IllegalArgumentException(
          "etcd user authentication needs both user name and password");
    }
    if (clientCert.isPresent() != clientKey.isPresent()) {
      throw new IllegalArgumentException(
          "an etcd client certificate needs its key, and the key its certificate");
    }
    if (clientCert.isPresent() && ca.isEmpty()) {
      throw new IllegalArgumentException("an etcd client certificate needs the CA (TLS)");
    }
  }

  /** Plain endpoints, no authentication, no TLS. */
  public static EtcdConfig of(List<URI> endpoints) {
    return new EtcdConfig(
        endpoints,
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  /** Whether the client speaks TLS to etcd. */
  public boolean tls() {
    return ca.isPresent() || endpoints.stream().anyMatch(u -> "https".equals(u.getScheme()));
  }

  /**
   * {@code ETCD_ENDPOINTS}' form: URLs separated by commas, each {@code http://} or {@code
   * https://} with a host and port.
   */
  public static List<URI> parseEndpoints(String raw) {
    List<URI> out = new java.util.ArrayList<>();
    for (String part : raw.split(",")) {
      String s = part.trim();
      URI uri;
      try {
        uri = new URI(s);
      } catch (java.net.URISyntaxException e) {
        throw new IllegalArgumentException("'" + s + "' is not a URL");
      }
      if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
          || uri.getHost() == null
          || uri.getPort() < 0) {
        throw new IllegalArgumentException(
            "'" + s + "' is not http://HOST:PORT or https://HOST:PORT");
      }
      out.add(uri);
    }
    return out;
  }
}
