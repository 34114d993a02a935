package io.kvrouter.config;

import java.time.Duration;
import java.util.Objects;

/**
 * How long the OpenAI HTTP server waits for a client, and how many clients it serves at once.
 *
 * @param idleTimeout how long a kept-alive connection may wait, with nothing in flight, for the
 *     first byte of its next request
 * @param headerTimeout how long a request head (request line and headers) may take to arrive: from
 *     the connection's opening for its first request, from the first byte for later ones
 * @param bodyTimeout how long a request body may take to arrive in full, from the end of its head
 * @param maxConnections open connections served in full; a few more are accepted for the probe
 *     routes only, and any beyond those are closed at once
 */
public record ConnectionLimits(
    Duration idleTimeout, Duration headerTimeout, Duration bodyTimeout, int maxConnections) {

  /** The defaults of the router's settings. */
  public static final ConnectionLimits DEFAULTS =
      new ConnectionLimits(
          Duration.ofSeconds(60), Duration.ofSeconds(10), Duration.ofSeconds(30), 10_000);

  public ConnectionLimits {
    positive(idleTimeout, "idleTimeout");
    positive(headerTimeout, "headerTimeout");
    positive(bodyTimeout, "bodyTimeout");
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections must be at least 1");
    }
  }

  private static void positive(Duration timeout, String name) {
    Objects.requireNonNull(timeout, name);
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException(name + " must be positive");
    }
  }
}
