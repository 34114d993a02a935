package io.kvrouter.routing;

import io.kvrouter.common.Ticker;
import java.time.Duration;

/**
 * Whether a worker is in rotation, and how long to wait before probing it again. No thread and no
 * timer: {@link HealthProber} asks it, and it reads the time from its {@link Ticker}.
 *
 * <p>Failures count up: a request the worker failed (when it takes the worker out of rotation) and
 * every probe it failed. The next probe waits {@link #backoff}{@code (failures - 1)}: 250 ms,
 * doubling to 30 s. A probe that succeeds puts the worker back in rotation <em>without</em>
 * forgetting the count, so a worker that passes probes but fails the next request again (it acks
 * but never streams, it hangs again at once) waits twice as long each time instead of flapping back
 * every 250 ms. The count is forgotten when a request completes on the worker, or when the worker
 * fails again after {@link #FORGIVEN_AFTER} in rotation.
 *
 * <p>Thread-safe: {@link #healthy()} is a volatile read on every routing decision; changes take the
 * lock.
 */
final class WorkerHealth {
  static final Duration FIRST_DELAY = Duration.ofMillis(250);
  static final Duration MAX_DELAY = Duration.ofSeconds(30);

  /** In rotation this long, a worker's earlier failures no longer count against it. */
  static final Duration FORGIVEN_AFTER = Duration.ofSeconds(30);

  private final Ticker ticker;
  private volatile boolean healthy = true;

  /** Consecutive failures; volatile so a completed request skips the lock when there are none. */
  private volatile int failures;

  /** When a probe last put the worker back in rotation. */
  private long healthySinceNanos;

  WorkerHealth(Ticker ticker) {
    this.ticker = ticker;
    this.healthySinceNanos = ticker.nanos();
  }

  /** Whether the worker is in rotation. */
  boolean healthy() {
    return healthy;
  }

  /** Failures counted against the worker now. */
  int failures() {
    return failures;
  }

  /**
   * A request failed at the worker (unreachable, no acknowledgement, stream broken or stalled).
   * Returns {@code true} when this took the worker out of rotation, and the caller must start
   * probing it; {@code false} when it already was out (its probes are running).
   */
  synchronized boolean fail() {
    if (!healthy) {
      return false;
    }
    if (ticker.nanos() - healthySinceNanos >= FORGIVEN_AFTER.toNanos()) {
      failures = 0;
    }
    failures++;
    healthy = false;
    return true;
  }

  /** A probe failed: the worker stays out, and the next probe waits twice as long. */
  synchronized void probeFailed() {
    failures++;
  }

  /** A probe succeeded: the worker is back in rotation; its failures still count. */
  synchronized void probeSucceeded() {
    healthy = true;
    healthySinceNanos = ticker.nanos();
  }

  /** A request completed on the worker: its failures are forgiven. */
  void requestCompleted() {
    if (failures != 0) {
      synchronized (this) {
        if (healthy) {
          failures = 0;
        }
      }
    }
  }

  /** How long to wait before the next probe of an unhealthy worker. */
  synchronized Duration nextProbeDelay() {
    return backoff(Math.max(0, failures - 1));
  }

  /** {@link #FIRST_DELAY} doubled {@code doublings} times, at most {@link #MAX_DELAY}. */
  static Duration backoff(int doublings) {
    long millis = FIRST_DELAY.toMillis() << Math.min(doublings, 16);
    return Duration.ofMillis(Math.min(millis, MAX_DELAY.toMillis()));
  }
}
