package io.kvrouter.routing;

import io.kvrouter.protocol.PreprocessedRequest;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** Takes the candidates in turn. */
final class RoundRobinSelector implements WorkerSelector {
  private final AtomicLong next = new AtomicLong();

  @Override
  public Route select(String requestId, PreprocessedRequest request, List<WorkerState> candidates) {
    int index = (int) Math.floorMod(next.getAndIncrement(), (long) candidates.size());
    return new Route(candidates.get(index), Booking.NONE);
  }

  @Override
  public String mode() {
    return "round-robin";
  }
}
