package io.kvrouter.tools.replay;

import java.util.PriorityQueue;

/**
 * A discrete-event clock: actions scheduled at virtual times run in time order, and those due at
 * the same time in the order they were scheduled, so a replay is reproducible.
 */
final class VirtualTime {
  private final PriorityQueue<Scheduled> queue = new PriorityQueue<>();
  private double nowMillis;
  private long scheduled;

  double nowMillis() {
    return nowMillis;
  }

  long nowNanos() {
    return (long) (nowMillis * 1_000_000.0);
  }

  /** Runs {@code action} at {@code atMillis}, or now if that has passed. */
  void at(double atMillis, Runnable action) {
    queue.add(new Scheduled(Math.max(atMillis, nowMillis), scheduled++, action));
  }

  void after(double delayMillis, Runnable action) {
    at(nowMillis + delayMillis, action);
  }

  /** Whether any action is scheduled. */
  boolean hasPending() {
    return !queue.isEmpty();
  }

  /** Runs every action, including those they schedule, until none is left. */
  void runAll() {
    Scheduled next;
    while ((next = queue.poll()) != null) {
      nowMillis = next.atMillis;
      next.action.run();
    }
  }

  private record Scheduled(double atMillis, long order, Runnable action)
      implements Comparable<Scheduled> {
    @Override
    public int compareTo(Scheduled o) {
      int byTime = Double.compare(atMillis, o.atMillis);
      return byTime != 0 ? byTime : Long.compare(order, o.order);
    }
  }
}
