package io.kvrouter.routing;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** Takes the candidates in turn. */
final class RoundRobinSelector implements WorkerSelector {
  private final AtomicLong next = new AtomicLong();

  @Override
  public int select(List<WorkerState> candidates) {
    return (int) Math.floorMod(next.getAndIncrement(), (long) candidates.size());
  }
}
