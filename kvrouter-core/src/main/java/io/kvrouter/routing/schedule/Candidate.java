package io.kvrouter.routing.schedule;

import io.kvrouter.protocol.WorkerRank;
import java.util.Objects;

/**
 * A worker rank the scheduler may choose, with its KV capacity and the KV blocks it says it uses.
 *
 * @param worker the worker rank
 * @param totalKvBlocks the KV blocks it can hold; 0 when unknown, which turns the
 *     active-decode-blocks busy filter off for it
 * @param reportedActiveBlocks the KV blocks in use by its own latest load report; -1 when it
 *     reports none (the router's own count is all there is)
 */
public record Candidate(WorkerRank worker, long totalKvBlocks, long reportedActiveBlocks) {

  public Candidate {
    Objects.requireNonNull(worker, "worker");
    if (totalKvBlocks < 0) {
      throw new IllegalArgumentException("totalKvBlocks must be >= 0: " + totalKvBlocks);
    }
    if (reportedActiveBlocks < -1) {
      throw new IllegalArgumentException(
          "reportedActiveBlocks must be >= 0 or -1: " + reportedActiveBlocks);
    }
  }

  /** {@code worker} holding {@code totalKvBlocks}, without a load report of its own. */
  public Candidate(WorkerRank worker, long totalKvBlocks) {
    this(worker, totalKvBlocks, -1);
  }

  /** {@code worker} with unknown KV capacity. */
  public static Candidate of(WorkerRank worker) {
    return new Candidate(worker, 0);
  }
}
