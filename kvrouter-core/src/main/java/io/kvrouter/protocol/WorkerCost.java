package io.kvrouter.protocol;

import java.util.Objects;

/**
 * Why one worker rank costs what it does for one request: the values {@code /router/explain} shows.
 *
 * @param worker the worker rank
 * @param overlapBlocks consecutive prompt blocks it caches from block 0
 * @param cachedBlocks blocks it caches in all (the tie-breaker at temperature 0)
 * @param newPrefillTokens prompt tokens it would compute for this request: {@code max(0, isl -
 *     overlapBlocks * blockSize)}
 * @param prefillTokens its active prefill tokens plus {@code newPrefillTokens}
 * @param decodeBlocks its active blocks plus the request's blocks not already active on it
 * @param cost {@code overlapScoreWeight * prefillTokens / blockSize + decodeBlocks}; lower is
 *     better
 * @param busy whether a busy filter excluded it (busy ranks are never chosen)
 */
public record WorkerCost(
    WorkerRank worker,
    int overlapBlocks,
    long cachedBlocks,
    long newPrefillTokens,
    long prefillTokens,
    long decodeBlocks,
    double cost,
    boolean busy) {

  public WorkerCost {
    Objects.requireNonNull(worker, "worker");
  }
}
