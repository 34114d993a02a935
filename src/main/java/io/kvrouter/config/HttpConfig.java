package io.kvrouter.config;

import java.time.Duration;
import java.util.Objects;

/**
 * The OpenAI HTTP server: where it listens, the largest body it reads, and how long requests in
 * flight may take to finish when the process shuts down.
 */
public record HttpConfig(String host, int port, long bodyLimitBytes, Duration gracefulShutdownTimeout) {
  public HttpConfig {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(gracefulShutdownTimeout, "gracefulShutdownTimeout");
    if (bodyLimitBytes < 1) {
      throw new IllegalArgumentException("bodyLimitBytes must be positive");
    }
  }

  /** The same settings on another port. */
  public HttpConfig withPort(int newPort) {
    return new HttpConfig(host, newPort, bodyLimitBytes, gracefulShutdownTimeout);
  }
}
