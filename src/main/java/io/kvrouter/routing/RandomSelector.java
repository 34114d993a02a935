package io.kvrouter.routing;

import java.util.List;
import java.util.SplittableRandom;

/** Takes a candidate uniformly at random. */
final class RandomSelector implements WorkerSelector {
  private final SplittableRandom random;

  RandomSelector(SplittableRandom random) {
    this.random = random;
  }

  @Override
  public int select(List<WorkerState> candidates) {
    synchronized (random) {
      return random.nextInt(candidates.size());
    }
  }
}
