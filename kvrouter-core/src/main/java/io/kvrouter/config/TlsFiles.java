package io.kvrouter.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A server's certificate and private key, as PEM files ({@code --tls-cert-path}, {@code
 * --tls-key-path}): the certificate file may hold its chain after it, and the key is PKCS#8 or
 * PKCS#1 (RSA) or SEC 1 (EC), unencrypted.
 */
public record TlsFiles(Path cert, Path key) {
  public TlsFiles {
    Objects.requireNonNull(cert, "cert");
    Objects.requireNonNull(key, "key");
  }
}
