package io.kvrouter.routing;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Requests in flight per worker, as a policy counts them: from its booking to its release.
 * Thread-safe and lock-free; a count read while other threads book and release is that worker's
 * count at some instant.
 */
final class InFlight {
  private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

  /** The requests in flight on {@code worker}. */
  int count(RouteCandidate worker) {
    AtomicInteger count = counts.get(worker.workerId());
    return count == null ? 0 : count.get();
  }

  /** The index of the candidate with the fewest requests in flight; the first such. */
  int leastLoaded(List<? extends RouteCandidate> candidates) {
    int best = 0;
    int bestCount = count(candidates.get(0));
    for (int i = 1; i < candidates.size(); i++) {
      int count = count(candidates.get(i));
      if (count < bestCount) {
        best = i;
        bestCount = count;
      }
    }
    return best;
  }

  /** Counts one more request on {@code workerId} until the booking is released. */
  RoutingPolicy.Booking book(String workerId) {
    AtomicInteger count = counts.computeIfAbsent(workerId, id -> new AtomicInteger());
    count.incrementAndGet();
    return new RoutingPolicy.Booking() {
      @Override
      public void firstOutput() {}

      @Override
      public void release() {
        count.decrementAndGet();
      }
    };
  }

  /**
   * Forgets {@code workerId}'s count (it left); its requests still running release into the
   * forgotten count, and a worker that joins again under that id counts from 0.
   */
  void forget(String workerId) {
    counts.remove(workerId);
  }

  /** Requests in flight over all workers. */
  int total() {
    return counts.values().stream().mapToInt(AtomicInteger::get).sum();
  }
}
