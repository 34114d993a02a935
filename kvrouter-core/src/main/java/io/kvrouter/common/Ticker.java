package io.kvrouter.common;

/**
 * Where a component reads the time: a monotonic count of nanoseconds from an arbitrary origin, as
 * {@link System#nanoTime()} gives it. Production code is handed {@link #SYSTEM}; tests and the
 * simulator hand in a clock they move themselves, so that no test waits for real time to pass.
 */
@FunctionalInterface
public interface Ticker {
  /** The wall clock's monotonic nanoseconds. */
  Ticker SYSTEM = System::nanoTime;

  /** Nanoseconds since this ticker's origin; never decreases. */
  long nanos();
}
