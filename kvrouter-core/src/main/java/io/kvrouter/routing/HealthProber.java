package io.kvrouter.routing;

import io.kvrouter.transport.RequestPlane;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings unhealthy workers back: while a worker is unhealthy it is probed (a request-plane
 * connection is opened) with exponential backoff, from {@link #FIRST_DELAY} doubling up to {@link
 * #MAX_DELAY}; the first probe that connects marks it healthy again.
 */
final class HealthProber {
  static final Duration FIRST_DELAY = Duration.ofMillis(250);
  static final Duration MAX_DELAY = Duration.ofSeconds(30);
  private static final Logger log = LoggerFactory.getLogger(HealthProber.class);

  private final Vertx vertx;
  private final RequestPlane plane;
  private final Set<Long> timers = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  HealthProber(Vertx vertx, RequestPlane plane) {
    this.vertx = vertx;
    this.plane = plane;
  }

  /** Marks {@code worker} unhealthy and starts probing it, unless it already is. */
  void markUnhealthy(WorkerState worker, Throwable cause) {
    if (worker.healthy.compareAndSet(true, false)) {
      log.warn("worker {} marked unhealthy: {}", worker.workerId(), cause.getMessage());
      schedule(worker, 0);
    }
  }

  static Duration backoff(int failures) {
    long millis = FIRST_DELAY.toMillis() << Math.min(failures, 16);
    return Duration.ofMillis(Math.min(millis, MAX_DELAY.toMillis()));
  }

  private void schedule(WorkerState worker, int failures) {
    if (closed) {
      return;
    }
    long[] id = new long[1];
    id[0] =
        vertx.setTimer(
            backoff(failures).toMillis(),
            t -> {
              timers.remove(id[0]);
              probe(worker, failures);
            });
    timers.add(id[0]);
  }

  private void probe(WorkerState worker, int failures) {
    plane
        .probe(worker.endpoint)
        .onComplete(
            ar -> {
              if (ar.succeeded()) {
                worker.healthy.set(true);
                log.info("worker {} is healthy again", worker.workerId());
              } else {
                schedule(worker, failures + 1);
              }
            });
  }

  void close() {
    closed = true;
    timers.forEach(vertx::cancelTimer);
  }
}
