package io.kvrouter.config;

import java.nio.file.Path;

/**
 * How the router checks plain engines' HTTPS servers ({@code url=https://...} workers) and what it
 * presents to them: the CA bundle their certificates must chain to (the JVM's trusted CAs when
 * null) and a client certificate for engines that require one (vLLM's {@code --ssl-ca-certs} with
 * {@code --ssl-cert-reqs 2}). Host names are always checked.
 */
public record EngineTls(Path caCertPath, Path clientCertPath, Path clientKeyPath) {

  public static final EngineTls DEFAULTS = new EngineTls(null, null, null);

  public EngineTls {
    if ((clientCertPath == null) != (clientKeyPath == null)) {
      throw new IllegalArgumentException("an engine client certificate needs its key");
    }
  }
}
