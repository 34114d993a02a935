package io.kvrouter.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * HTTPS on a simulated plain engine's API ({@code router.jar worker --api openai|sglang}), with
 * vLLM's flags: {@code --ssl-certfile}, {@code --ssl-keyfile}, {@code --ssl-ca-certs} and {@code
 * --ssl-cert-reqs} (Python's {@code ssl.CERT_NONE}, {@code CERT_OPTIONAL}, {@code CERT_REQUIRED}:
 * 0, 1, 2), so a router's {@code url=https://} workers can be tried without a GPU.
 *
 * @param certReqs 0: no client certificate asked; 1: asked, not required; 2: required, signed by
 *     {@code caCerts}
 */
public record EngineServerTls(Path certFile, Path keyFile, Path caCerts, int certReqs) {
  public EngineServerTls {
    Objects.requireNonNull(certFile, "certFile");
    Objects.requireNonNull(keyFile, "keyFile");
    if (certReqs < 0 || certReqs > 2) {
      throw new IllegalArgumentException("certReqs is 0, 1 or 2");
    }
    if (certReqs > 0 && caCerts == null) {
      throw new IllegalArgumentException("client certificates are checked against caCerts");
    }
  }
}
