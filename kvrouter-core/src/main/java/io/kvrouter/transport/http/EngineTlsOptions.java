package io.kvrouter.transport.http;

import io.kvrouter.config.EngineTls;
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
