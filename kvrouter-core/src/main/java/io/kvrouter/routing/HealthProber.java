package io.kvrouter.routing;

import io.kvrouter.metrics.MetricNames;
import io.kvrouter.transport.RequestPlane;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes failing workers out of rotation and brings them back: while a worker is unhealthy it is
 * probed ({@link RequestPlane#probe}, a round trip the worker process must answer) after the delay
 * its {@link WorkerHealth} gives, and the first probe that succeeds puts it back. Counts each fault
 * ({@value MetricNames#WORKER_FAULTS}) and probe ({@value MetricNames#WORKER_HEALTH_PROBES}) per
 * worker.
 */
final class HealthProber {
  private static final Logger log = LoggerFactory.getLogger(HealthProber.class);

  private final Vertx vertx;
  private final RequestPlane plane;
  private final MeterRegistry meters;
  private final Set<Long> timers = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  HealthProber(Vertx vertx, RequestPlane plane, MeterRegistry meters) {
    this.vertx = vertx;
    this.plane = plane;
    this.meters = meters;
  }

  /**
   * {@code worker} failed a request: counts the fault and, unless it already is, takes it out of
   * rotation and starts probing it.
   */
  void markUnhealthy(WorkerState worker, Throwable cause) {
    counter(MetricNames.WORKER_FAULTS, worker, null).increment();
    if (worker.health.fail()) {
      log.warn(
          "worker {} marked unhealthy ({} failure(s) in a row): {}",
          worker.workerId(),
          worker.health.failures(),
          cause.getMessage());
      schedule(worker);
    }
  }

  private void schedule(WorkerState worker) {
    if (closed || worker.retired()) {
      return;
    }
    long[] id = new long[1];
    id[0] =
        vertx.setTimer(
            worker.health.nextProbeDelay().toMillis(),
            t -> {
              timers.remove(id[0]);
              probe(worker);
            });
    timers.add(id[0]);
  }

  private void probe(WorkerState worker) {
    if (worker.retired()) {
      return;
    }
    plane
        .probe(worker.endpoint)
        .onComplete(
            ar -> {
              if (ar.succeeded()) {
                counter(MetricNames.WORKER_HEALTH_PROBES, worker, "ok").increment();
                worker.health.probeSucceeded();
                log.info("worker {} is healthy again", worker.workerId());
              } else {
                counter(MetricNames.WORKER_HEALTH_PROBES, worker, "failed").increment();
                worker.health.probeFailed();
                log.debug(
                    "worker {} failed a health probe: {}",
                    worker.workerId(),
                    ar.cause().getMessage());
                schedule(worker);
              }
            });
  }

  private Counter counter(String name, WorkerState worker, String outcome) {
    Counter.Builder builder =
        Counter.builder(name)
            .description(
                outcome == null
                    ? "Requests that met a worker fault (unreachable, no acknowledgement, stream"
                        + " broken or stalled), and failed start-up probes"
                    : "Health probes of unhealthy workers, by outcome")
            .tag(MetricNames.TAG_WORKER_ID, worker.workerId());
    if (outcome != null) {
      builder.tag(MetricNames.TAG_OUTCOME, outcome);
    }
    return builder.register(meters);
  }

  /** Runs {@code task} on a Vert.x context (a caller off Vert.x hands its probe there). */
  void onContext(Runnable task) {
    vertx.runOnContext(v -> task.run());
  }

  void close() {
    closed = true;
    timers.forEach(vertx::cancelTimer);
  }
}
