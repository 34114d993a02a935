package io.kvrouter.routing;

import io.kvrouter.protocol.WorkerRank;
import java.util.List;
import java.util.Random;
import java.util.function.ToIntFunction;

/**
 * The cache-blind policies: each picks a rank from the requests in flight per rank alone.
 *
 * <ul>
 *   <li>{@code round-robin}: ranks in turn;
 *   <li>{@code random}: uniformly at random;
 *   <li>{@code least-loaded}: the rank with the fewest requests in flight (the first among equals);
 *   <li>{@code power-of-two}: two distinct ranks at random, the one with fewer requests in flight
 *       (the first drawn among equals), as SGLang's {@code power_of_two} does when it has no token
 *       loads from the workers.
 * </ul>
 */
final class LoadBalancingPolicy implements RankPolicy {
  private final String name;
  private final InFlight inFlight;
  private final ToIntFunction<InFlight> choice;

  private LoadBalancingPolicy(String name, List<WorkerRank> ranks, ToIntFunction<InFlight> choice) {
    this.name = name;
    this.inFlight = new InFlight(ranks);
    this.choice = choice;
  }

  static RankPolicy roundRobin(List<WorkerRank> ranks) {
    int[] next = {0};
    return new LoadBalancingPolicy("round-robin", ranks, load -> next[0]++ % load.ranks().size());
  }

  static RankPolicy random(List<WorkerRank> ranks, Random random) {
    return new LoadBalancingPolicy("random", ranks, load -> random.nextInt(load.ranks().size()));
  }

  static RankPolicy leastLoaded(List<WorkerRank> ranks) {
    return new LoadBalancingPolicy("least-loaded", ranks, InFlight::leastLoaded);
  }

  static RankPolicy powerOfTwo(List<WorkerRank> ranks, Random random) {
    return new LoadBalancingPolicy(
        "power-of-two",
        ranks,
        load -> {
          int n = load.ranks().size();
          if (n == 1) {
            return 0;
          }
          int first = random.nextInt(n);
          int second = random.nextInt(n - 1);
          if (second >= first) {
            second++;
          }
          return load.count(second) < load.count(first) ? second : first;
        });
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public WorkerRank route(HashedPrompt prompt) {
    return inFlight.book(prompt.requestId(), choice.applyAsInt(inFlight));
  }

  @Override
  public void finished(String requestId) {
    inFlight.finished(requestId);
  }
}
