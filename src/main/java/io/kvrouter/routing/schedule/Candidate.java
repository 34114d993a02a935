package io.kvrouter.routing.schedule;

import io.kvrouter.protocol.WorkerRank;
import java.util.Objects;

/**
 * A worker rank the scheduler may choose, with its KV capacity.
 *
 * @param worker the worker rank
 * @param totalKvBlocks the KV blocks it can hold; 0 when unknown, which turns the
 *     active-decode-blocks busy filter off for it
 */
public record Candidate(WorkerRank worker, long totalKvBlocks) {

  public Candidate {
    Objects.requireNonNull(worker, "worker");
    if (totalKvBlocks < 0) {
      throw new IllegalArgumentException("totalKvBlocks must be >= 0: " + totalKvBlocks);
    }
  }

  /** {@code worker} with unknown KV capacity. */
  public static Candidate of(WorkerRank worker) {
    return new Candidate(worker, 0);
  }
}
