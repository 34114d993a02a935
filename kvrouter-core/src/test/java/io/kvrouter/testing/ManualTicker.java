package io.kvrouter.testing;

import io.kvrouter.common.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A {@link Ticker} that moves only when the test moves it. Thread-safe. */
public final class ManualTicker implements Ticker {
  private final AtomicLong nanos = new AtomicLong();

  @Override
  public long nanos() {
    return nanos.get();
  }

  /** Moves the clock forward by {@code step}. */
  public void advance(Duration step) {
    if (step.isNegative()) {
      throw new IllegalArgumentException("time does not go back: " + step);
    }
    nanos.addAndGet(step.toNanos());
  }
}
