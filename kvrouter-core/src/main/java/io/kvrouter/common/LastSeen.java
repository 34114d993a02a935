package io.kvrouter.common;

/**
 * When something last happened, in a {@link Ticker}'s nanoseconds, for reports such as "ms since
 * the last batch". Any instant is a valid one (a ticker's origin is arbitrary, and a test's starts
 * at 0), so "never" is kept apart. One thread writes it; any thread may read it.
 */
public final class LastSeen {
  private volatile long nanos;
  private volatile boolean seen;

  /** It happened at {@code nowNanos}. */
  public void at(long nowNanos) {
    nanos = nowNanos;
    seen = true; // written last: a reader that sees it sees the instant too
  }

  /** Whole milliseconds from the last time it happened to {@code nowNanos}; -1 if it never did. */
  public long millisSince(long nowNanos) {
    return seen ? (nowNanos - nanos) / 1_000_000 : -1;
  }
}
