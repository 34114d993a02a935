package io.kvrouter.protocol;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;

/**
 * How much of a prompt each worker rank already caches: {@code overlapBlocks} holds, for every rank
 * that matches at least the first block, the number of consecutive blocks it holds from block 0;
 * {@code cachedBlocks} holds the total number of blocks each of those ranks caches (Dynamo's {@code
 * OverlapScores.scores} and {@code tree_sizes}). Ranks that match nothing are absent.
 *
 * <p>The maps are wrapped unmodifiable, not copied: whoever builds an instance hands its maps over.
 */
public record OverlapScores(
    Map<WorkerRank, Integer> overlapBlocks, Map<WorkerRank, Long> cachedBlocks) {

  public static final OverlapScores EMPTY = new OverlapScores(Map.of(), Map.of());

  public OverlapScores {
    overlapBlocks =
        Collections.unmodifiableMap(Objects.requireNonNull(overlapBlocks, "overlapBlocks"));
    cachedBlocks =
        Collections.unmodifiableMap(Objects.requireNonNull(cachedBlocks, "cachedBlocks"));
  }

  /** Consecutive blocks {@code worker} holds from block 0; 0 when it holds not even the first. */
  public int overlap(WorkerRank worker) {
    Integer blocks = overlapBlocks.get(worker);
    return blocks == null ? 0 : blocks;
  }
}
