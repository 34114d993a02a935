package io.kvrouter.config;

import java.util.Objects;

/** The OpenAI HTTP server: where it listens and the largest body it reads. */
public record HttpConfig(String host, int port, long bodyLimitBytes) {
  public HttpConfig {
    Objects.requireNonNull(host, "host");
    if (bodyLimitBytes < 1) {
      throw new IllegalArgumentException("bodyLimitBytes must be positive");
    }
  }
}
