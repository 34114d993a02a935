package io.kvrouter.frontend;

import io.kvrouter.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Caps the client connections open at once, over every HTTP server of the process. Up to {@code
 * max} are served in full; the next {@link #PROBE_RESERVE} serve only the probe routes, so a load
 * balancer's health check still answers when the cap is taken (by idle or slow clients, say); any
 * beyond are refused and counted. Thread-safe.
 */
final class ConnectionLimit {
  /** Connections accepted past the cap for the probe routes only. */
  static final int PROBE_RESERVE = 32;

  /**
   * Descriptors the process needs besides client connections: worker connections (up to {@code
   * --tcp-pool-size} per worker), call-home streams, event sockets, the JVM's own files.
   */
  static final int OTHER_DESCRIPTORS = 1024;

  /** What a new connection may do. */
  enum Admission {
    /** Any request. */
    FULL,
    /** Only {@code /health}, {@code /live} and {@code /metrics}, one request, then closed. */
    PROBES_ONLY,
    /** Nothing: close it at once. */
    REFUSED
  }

  private final int max;
  private final AtomicInteger open = new AtomicInteger();
  private final Counter refused;

  ConnectionLimit(int max, MeterRegistry registry) {
    this.max = max;
    Gauge.builder(MetricNames.HTTP_CONNECTIONS, open, AtomicInteger::get)
        .description("Client connections open now")
        .register(registry);
    refused =
        Counter.builder(MetricNames.HTTP_CONNECTIONS_REFUSED)
            .description("Client connections closed at once: every slot, reserve included, taken")
            .register(registry);
  }

  /** Takes a slot for a new connection; unless refused, {@link #release()} it when it closes. */
  Admission admit() {
    int now = open.incrementAndGet();
    if (now <= max) {
      return Admission.FULL;
    }
    if (now <= max + PROBE_RESERVE) {
      return Admission.PROBES_ONLY;
    }
    open.decrementAndGet();
    refused.increment();
    return Admission.REFUSED;
  }

  void release() {
    open.decrementAndGet();
  }

  /**
   * Why {@code fileLimit} (the process's open-file limit) is too low for this cap, if it is: at the
   * limit the router can accept no connection, not even a probe, and open none to its workers.
   */
  Optional<String> descriptorShortfall(long fileLimit) {
    long needed = (long) max + PROBE_RESERVE + OTHER_DESCRIPTORS;
    if (fileLimit >= needed) {
      return Optional.empty();
    }
    return Optional.of(
        "the open-file limit ("
            + fileLimit
            + ") is below --http-max-connections ("
            + max
            + ") + "
            + PROBE_RESERVE
            + " probe connections + "
            + OTHER_DESCRIPTORS
            + " for workers and the JVM; raise it (ulimit -n "
            + needed
            + ") or lower --http-max-connections");
  }
}
