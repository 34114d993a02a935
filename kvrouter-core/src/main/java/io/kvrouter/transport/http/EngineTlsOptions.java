package io.kvrouter.transport.http;

import io.kvrouter.config.EngineTls;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;

/**
 * The TLS side of every HTTP client that talks to plain engines (requests, health probes, metrics
 * scrapes): the CA bundle and client certificate of {@link EngineTls}, and host names checked.
 * Whether a connection uses TLS is its URL's scheme ({@code https}).
 */
public final class EngineTlsOptions {
  private EngineTlsOptions() {}

  /**
   * Reads the CA bundle and client certificate now (Vert.x would at the first connection).
   *
   * @throws IllegalArgumentException naming what does not load
   */
  public static void load(Vertx vertx, EngineTls tls) {
    HttpClientOptions options = apply(new HttpClientOptions(), tls);
    try {
      if (options.getTrustOptions() != null) {
        options.getTrustOptions().getTrustManagerFactory(vertx);
      }
      if (options.getKeyCertOptions() != null) {
        options.getKeyCertOptions().getKeyManagerFactory(vertx);
      }
    } catch (Exception e) {
      throw new IllegalArgumentException(
          "the TLS files for https:// workers (--http-worker-*) do not load: " + e.getMessage(), e);
    }
  }

  /** {@code options} with the engines' trust and client certificate. */
  public static HttpClientOptions apply(HttpClientOptions options, EngineTls tls) {
    options.setVerifyHost(true);
    if (tls.caCertPath() != null) {
      options.setTrustOptions(new PemTrustOptions().addCertPath(tls.caCertPath().toString()));
    }
    if (tls.clientCertPath() != null) {
      options.setKeyCertOptions(
          new PemKeyCertOptions()
              .setCertPath(tls.clientCertPath().toString())
              .setKeyPath(tls.clientKeyPath().toString()));
    }
    return options;
  }
}
