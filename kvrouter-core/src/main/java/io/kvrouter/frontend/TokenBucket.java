package io.kvrouter.frontend;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

/**
 * A token bucket of {@code capacity} units that refills at {@code capacity} per minute, kept as the
 * generic cell rate algorithm keeps it: instead of a level and a last-refill time, one instant, the
 * bucket's "theoretical arrival time" {@code tat}, at which it would be full again.
 *
 * <p>With the window {@code W} = 60 s, a unit costs {@code I = W / capacity} of time. At time
 * {@code now} the bucket holds {@code level = capacity × (W − max(0, tat − now)) / W}. Taking
 * {@code n} units moves {@code tat} to {@code max(tat, now) + n × I}, which is allowed when that is
 * at most {@code now + W}, i.e. when {@code n ≤ level}; so bursts reach at most {@code capacity}
 * (the per-minute limit) and the long-run rate is {@code capacity} per minute. A refused take waits
 * {@code max(tat, now) + n × I − W − now}. Giving units back moves {@code tat} back by {@code n ×
 * I}, never before {@code now} (a bucket is never more than full); charging units after the fact
 * moves it forward without bound (the bucket owes them, and later takes wait for the debt).
 *
 * <p>The whole state is one immutable pair (capacity, tat) swapped by compare-and-set: thread-safe
 * without locks. A new capacity keeps the units already used ({@link #resize}). Capacity 0 is no
 * limit: everything passes.
 */
final class TokenBucket {
  /** The refill window: the bucket refills completely in one minute. */
  static final long WINDOW_NANOS = 60_000_000_000L;

  private record State(long capacity, long tat) {}

  /**
   * What a take found.
   *
   * @param taken whether the units were taken
   * @param waitNanos when refused, how long until they could be taken (0 when taken)
   * @param until when taken, the instant the bucket's time for them runs out: what a later {@link
   *     #giveBack(long, long, long)} of them may still return
   */
  record Take(boolean taken, long waitNanos, long until) {}

  /**
   * The bucket as it is.
   *
   * @param capacity its capacity (the per-minute limit), 0 for none
   * @param remaining the units it holds
   * @param fullInNanos how long until it is full again
   */
  record Level(long capacity, long remaining, long fullInNanos) {}

  private final AtomicReference<State> state;

  TokenBucket(long capacity, long now) {
    this.state = new AtomicReference<>(new State(capacity, now));
  }

  long capacity() {
    return state.get().capacity();
  }

  /** The time {@code units} cost at {@code capacity} per minute, rounded down. */
  static long cost(long units, long capacity) {
    if (units <= Long.MAX_VALUE / WINDOW_NANOS) {
      return units * WINDOW_NANOS / capacity;
    }
    return (long) Math.min(Long.MAX_VALUE / 4.0, (double) units * WINDOW_NANOS / capacity);
  }

  /** Takes {@code units} if the bucket holds them. */
  Take take(long units, long now) {
    while (true) {
      State s = state.get();
      if (s.capacity() == 0) {
        return new Take(true, 0, now);
      }
      long next = Math.max(s.tat(), now) + cost(units, s.capacity());
      long over = next - now - WINDOW_NANOS;
      if (over > 0) {
        return new Take(false, over, now);
      }
      if (state.compareAndSet(s, new State(s.capacity(), next))) {
        return new Take(true, 0, next);
      }
    }
  }

  /** Gives back {@code units} taken before and not used; the bucket fills no further than full. */
  void giveBack(long units, long now) {
    giveBack(units, now, Long.MAX_VALUE);
  }

  /**
   * Gives back {@code units} of a take whose time ran until {@code until} ({@link Take#until}),
   * only as much of it as has not run out by {@code now}: {@code tat} moves back by {@code min(n ×
   * I, max(0, until − now))}. A booking that has already been paid for by the passing time (a long
   * stream) returns nothing, so a key cannot book again what time has already refilled.
   */
  void giveBack(long units, long now, long until) {
    update(
        s ->
            new State(
                s.capacity(),
                Math.max(
                    now, s.tat() - Math.min(cost(units, s.capacity()), Math.max(0, until - now)))));
  }

  /** Charges {@code units} used beyond what was taken: the bucket may owe them. */
  void charge(long units, long now) {
    update(s -> new State(s.capacity(), Math.max(s.tat(), now) + cost(units, s.capacity())));
  }

  /**
   * Sets a new capacity, keeping the units used: a bucket that had used {@code u} units (of the old
   * capacity's time) has used {@code u} of the new one; from no limit, it starts full.
   */
  void resize(long capacity, long now) {
    while (true) {
      State s = state.get();
      State resized;
      if (s.capacity() == capacity) {
        return;
      } else if (s.capacity() == 0 || capacity == 0) {
        resized = new State(capacity, now);
      } else {
        double used = (double) Math.max(0, s.tat() - now) * s.capacity() / WINDOW_NANOS;
        resized = new State(capacity, now + cost(Math.round(used), capacity));
      }
      if (state.compareAndSet(s, resized)) {
        return;
      }
    }
  }

  Level level(long now) {
    State s = state.get();
    if (s.capacity() == 0) {
      return new Level(0, 0, 0);
    }
    long busy = Math.max(0, s.tat() - now);
    long remaining =
        busy >= WINDOW_NANOS
            ? 0
            : (long) Math.floor((double) (WINDOW_NANOS - busy) * s.capacity() / WINDOW_NANOS);
    return new Level(s.capacity(), Math.min(remaining, s.capacity()), busy);
  }

  private void update(UnaryOperator<State> change) {
    while (true) {
      State s = state.get();
      if (s.capacity() == 0) {
        return;
      }
      if (state.compareAndSet(s, change.apply(s))) {
        return;
      }
    }
  }
}
