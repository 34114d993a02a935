package io.kvrouter.common;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * Logs faults that others cause (a malformed client request, a garbage KV event batch) without
 * letting them flood the log: each one at DEBUG, and at most one WARN per {@code interval} that
 * says how many happened since the last summary and what the latest was. A hostile peer sending
 * thousands of bad messages a second costs one log line a minute. Counting them for metrics stays
 * the caller's job. Thread-safe.
 */
public final class FaultLog {
  /** The summary interval used in production. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(60);

  private final Logger log;
  private final String what;
  private final long intervalNanos;
  private final Ticker ticker;
  private final AtomicLong unreported = new AtomicLong();
  private final AtomicLong nextSummaryNanos;

  /**
   * @param what the kind of fault, plural, for the summary ("malformed client requests")
   */
  public FaultLog(Logger log, String what, Duration interval, Ticker ticker) {
    this.log = log;
    this.what = what;
    this.intervalNanos = interval.toNanos();
    this.ticker = ticker;
    this.nextSummaryNanos = new AtomicLong(ticker.nanos());
  }

  /** A fault log with the {@linkplain #DEFAULT_INTERVAL default interval} on the system clock. */
  public static FaultLog of(Logger log, String what) {
    return new FaultLog(log, what, DEFAULT_INTERVAL, Ticker.SYSTEM);
  }

  /** One fault happened; {@code detail} says which. */
  public void fault(String detail) {
    log.debug("{}: {}", what, detail);
    unreported.incrementAndGet();
    long now = ticker.nanos();
    long due = nextSummaryNanos.get();
    if (now - due >= 0 && nextSummaryNanos.compareAndSet(due, now + intervalNanos)) {
      log.warn(
          "{} {} in the last {} s (the latest: {}); each one is logged at DEBUG",
          unreported.getAndSet(0),
          what,
          Duration.ofNanos(intervalNanos).toSeconds(),
          detail);
    }
  }
}
