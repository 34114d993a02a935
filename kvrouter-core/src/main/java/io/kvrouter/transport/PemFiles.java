package io.kvrouter.transport;

import io.vertx.core.Vertx;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.net.TCPSSLOptions;
import java.nio.file.Path;

/**
 * PEM files as Vert.x TLS options, for every request plane and the simulated engines' servers: a
 * certificate with its key, a CA bundle, and a way to read them at start.
 */
public final class PemFiles {
  private PemFiles() {}

  /** A certificate (its chain may follow it) and its unencrypted key. */
  public static PemKeyCertOptions keyCert(Path cert, Path key) {
    return new PemKeyCertOptions().setCertPath(cert.toString()).setKeyPath(key.toString());
  }

  /** The CAs a peer's certificate must chain to. */
  public static PemTrustOptions trust(Path ca) {
    return new PemTrustOptions().addCertPath(ca.toString());
  }

  /**
   * Reads every key, certificate and CA the {@code options} name, now: Vert.x would read them only
   * at the first connection, so a broken file would start a process whose every connection fails.
   *
   * @param settings the settings that named the files, for the message
   * @throws IllegalArgumentException naming {@code settings} when something does not load
   */
  public static void loadNow(Vertx vertx, String settings, TCPSSLOptions... options) {
    try {
      for (TCPSSLOptions one : options) {
        if (one.getKeyCertOptions() != null) {
          one.getKeyCertOptions().getKeyManagerFactory(vertx);
        }
        if (one.getTrustOptions() != null) {
          one.getTrustOptions().getTrustManagerFactory(vertx);
        }
      }
    } catch (Exception e) {
      throw new IllegalArgumentException(
          "the TLS files of " + settings + " do not load: " + e.getMessage(), e);
    }
  }
}
