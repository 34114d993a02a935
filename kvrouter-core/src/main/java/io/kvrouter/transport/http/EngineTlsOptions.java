package io.kvrouter.transport.http;

import io.kvrouter.config.EngineTls;
import io.kvrouter.transport.PemFiles;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;

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
    PemFiles.loadNow(vertx, "--http-worker-*", apply(new HttpClientOptions(), tls));
  }

  /** {@code options} with the engines' trust and client certificate. */
  public static HttpClientOptions apply(HttpClientOptions options, EngineTls tls) {
    options.setVerifyHost(true);
    if (tls.caCertPath() != null) {
      options.setTrustOptions(PemFiles.trust(tls.caCertPath()));
    }
    if (tls.clientCertPath() != null) {
      options.setKeyCertOptions(PemFiles.keyCert(tls.clientCertPath(), tls.clientKeyPath()));
    }
    return options;
  }
}
