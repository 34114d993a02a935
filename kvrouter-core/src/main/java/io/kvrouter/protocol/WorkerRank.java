package io.kvrouter.protocol;

import java.util.Objects;

/**
 * One routing target: a worker and one of its data-parallel ranks (Dynamo's {@code
 * WorkerWithDpRank}). Each rank keeps its own KV cache, so each rank is scored separately.
 */
public record WorkerRank(String workerId, int dpRank) {

  public WorkerRank {
    Objects.requireNonNull(workerId, "workerId");
    if (dpRank < 0) {
      throw new IllegalArgumentException("dpRank must be >= 0: " + dpRank);
    }
  }

  /** Rank 0 of {@code workerId}, the only rank of a worker without data parallelism. */
  public static WorkerRank of(String workerId) {
    return new WorkerRank(workerId, 0);
  }

  @Override
  public String toString() {
    return workerId + "#" + dpRank;
  }
}
