package io.kvrouter.routing;

import io.kvrouter.config.RouterMode;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The cache-blind policies: each picks a worker from the candidates alone, or from the requests it
 * has in flight on each.
 *
 * <ul>
 *   <li>{@code round-robin}: candidates in turn;
 *   <li>{@code random}: uniformly at random;
 *   <li>{@code least-loaded}: the candidate with the fewest requests in flight (the first among
 *       equals);
 *   <li>{@code power-of-two}: two distinct candidates at random, the one with fewer requests in
 *       flight (the first drawn among equals), as SGLang's {@code power_of_two} does when it has no
 *       token loads from the workers.
 * </ul>
 *
 * Round-robin and random book nothing. Thread-safe and lock-free: the turn is an atomic counter,
 * {@link Random} is safe for concurrent use, and the in-flight counts are atomic.
 */
final class LoadBalancingPolicy implements RoutingPolicy {

  /** Picks the index of a candidate. */
  @FunctionalInterface
  private interface Pick {
    int among(List<? extends RouteCandidate> candidates, InFlight inFlight);
  }

  private final RouterMode mode;
  private final Pick pick;
  private final boolean countsRequests;
  private final InFlight inFlight = new InFlight();

  private LoadBalancingPolicy(RouterMode mode, boolean countsRequests, Pick pick) {
    this.mode = mode;
    this.countsRequests = countsRequests;
    this.pick = pick;
  }

  static RoutingPolicy roundRobin() {
    AtomicLong next = new AtomicLong();
    return new LoadBalancingPolicy(
        RouterMode.ROUND_ROBIN,
        false,
        (candidates, load) ->
            (int) Math.floorMod(next.getAndIncrement(), (long) candidates.size()));
  }

  static RoutingPolicy random(Random random) {
    return new LoadBalancingPolicy(
        RouterMode.RANDOM, false, (candidates, load) -> random.nextInt(candidates.size()));
  }

  static RoutingPolicy leastLoaded() {
    return new LoadBalancingPolicy(
        RouterMode.LEAST_LOADED, true, (candidates, load) -> load.leastLoaded(candidates));
  }

  static RoutingPolicy powerOfTwo(Random random) {
    return new LoadBalancingPolicy(
        RouterMode.POWER_OF_TWO,
        true,
        (candidates, load) -> {
          int n = candidates.size();
          if (n == 1) {
            return 0;
          }
          int first = random.nextInt(n);
          int second = random.nextInt(n - 1);
          if (second >= first) {
            second++;
          }
          return load.count(candidates.get(second)) < load.count(candidates.get(first))
              ? second
              : first;
        });
  }

  @Override
  public RouterMode mode() {
    return mode;
  }

  @Override
  public <W extends RouteCandidate> Choice<W> choose(Prompt prompt, List<W> candidates) {
    return Choice.of(candidates.get(pick.among(candidates, inFlight)));
  }

  @Override
  public Booking book(String requestId, Prompt prompt, Choice<?> choice) {
    return countsRequests ? inFlight.book(choice.worker().workerId()) : Booking.NONE;
  }

  @Override
  public void workerLeft(RouteCandidate worker) {
    inFlight.forget(worker.workerId());
  }

  /** Requests booked and not yet released: for tests. */
  int requestsInFlight() {
    return inFlight.total();
  }
}
