package io.kvrouter.routing;

import io.kvrouter.protocol.WorkerEndpoint;
import java.util.Objects;

/**
 * A worker the router sends requests to.
 *
 * @param endpoint where its request plane listens
 * @param totalKvBlocks the KV blocks each of its data-parallel ranks declared it can hold; 0 when
 *     unknown, which turns the active-decode-blocks busy filter off for it
 * @param dpSize its data-parallel ranks, each with its own KV cache: kv mode routes to a rank and
 *     tells the worker which ({@code routing.dp_rank})
 */
public record RouteTarget(WorkerEndpoint endpoint, long totalKvBlocks, int dpSize) {
  public RouteTarget {
    Objects.requireNonNull(endpoint, "endpoint");
    if (totalKvBlocks < 0) {
      throw new IllegalArgumentException("totalKvBlocks must be >= 0: " + totalKvBlocks);
    }
    if (dpSize < 1) {
      throw new IllegalArgumentException("dpSize must be >= 1: " + dpSize);
    }
  }

  /** A worker without data parallelism. */
  public RouteTarget(WorkerEndpoint endpoint, long totalKvBlocks) {
    this(endpoint, totalKvBlocks, 1);
  }

  /** {@code endpoint} with unknown KV capacity. */
  public static RouteTarget of(WorkerEndpoint endpoint) {
    return new RouteTarget(endpoint, 0);
  }
}
