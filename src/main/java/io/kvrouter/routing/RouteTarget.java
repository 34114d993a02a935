package io.kvrouter.routing;

import io.kvrouter.protocol.WorkerEndpoint;
import java.util.Objects;

/**
 * A worker the router sends requests to.
 *
 * @param endpoint where its request plane listens
 * @param totalKvBlocks the KV blocks it declared it can hold; 0 when unknown, which turns the
 *     active-decode-blocks busy filter off for it
 */
public record RouteTarget(WorkerEndpoint endpoint, long totalKvBlocks) {
  public RouteTarget {
    Objects.requireNonNull(endpoint, "endpoint");
    if (totalKvBlocks < 0) {
      throw new IllegalArgumentException("totalKvBlocks must be >= 0: " + totalKvBlocks);
    }
  }

  /** {@code endpoint} with unknown KV capacity. */
  public static RouteTarget of(WorkerEndpoint endpoint) {
    return new RouteTarget(endpoint, 0);
  }
}
