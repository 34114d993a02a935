package io.kvrouter.routing;

import io.kvrouter.protocol.PreprocessedRequest;
import java.util.List;
import java.util.SplittableRandom;

/** Takes a candidate uniformly at random. */
final class RandomSelector implements WorkerSelector {
  private final SplittableRandom random;

  RandomSelector(SplittableRandom random) {
    this.random = random;
  }

  @Override
  public Route select(String requestId, PreprocessedRequest request, List<WorkerState> candidates) {
    int index;
    synchronized (random) {
      index = random.nextInt(candidates.size());
    }
    return new Route(candidates.get(index), Booking.NONE);
  }

  @Override
  public String mode() {
    return "random";
  }
}
