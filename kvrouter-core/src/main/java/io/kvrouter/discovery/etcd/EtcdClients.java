package io.kvrouter.discovery.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.kvrouter.config.EtcdConfig;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import javax.net.ssl.SSLException;

/** A jetcd {@link Client} for an {@link EtcdConfig}: endpoints, user and password, TLS. */
public final class EtcdClients {
  private EtcdClients() {}

  /** A client; it connects lazily, on the first call. */
  public static Client connect(EtcdConfig config) {
    ClientBuilder builder =
        Client.builder()
            .endpoints(config.endpoints())
            .connectTimeout(Duration.ofSeconds(5))
            .retryMaxDuration(Duration.ofSeconds(10));
    if (config.username().isPresent()) {
      builder.user(bytes(config.username().get())).password(bytes(config.password().get()));
    }
    if (config.tls()) {
      try {
        builder.sslContext(
            ssl -> {
              config.ca().ifPresent(ca -> ssl.trustManager(pem(ca)));
              if (config.clientCert().isPresent()) {
                ssl.keyManager(pem(config.clientCert().get()), pem(config.clientKey().get()));
              }
            });
      } catch (SSLException e) {
        throw new IllegalArgumentException("etcd TLS: " + e.getMessage(), e);
      }
    }
    return builder.build();
  }

  static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  /** PEM text as given, or the contents of the file it names (see {@link EtcdConfig}). */
  private static InputStream pem(String value) {
    if (value.startsWith("-----BEGIN")) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.US_ASCII));
    }
    try {
      return new ByteArrayInputStream(Files.readAllBytes(Path.of(value)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read etcd TLS file " + value, e);
    }
  }
}
