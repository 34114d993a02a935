package io.kvrouter.routing.schedule;

import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * Dynamo's busy thresholds, combined with OR: a rank is busy when its active blocks exceed {@code
 * activeDecodeBlocksThreshold * totalKvBlocks} (only when its KV capacity is known), or its active
 * prefill tokens exceed {@code activePrefillTokensThreshold}. Both compare the load before the
 * request being routed. Active blocks are the router's own count or, when higher, what the worker
 * last reported using: the worker's count is authoritative for overload (it sees requests other
 * routers sent), the router's is newer.
 */
final class BusyFilter {

  private final OptionalDouble decodeBlocksFraction;
  private final OptionalLong prefillTokens;

  BusyFilter(OptionalDouble decodeBlocksFraction, OptionalLong prefillTokens) {
    this.decodeBlocksFraction = decodeBlocksFraction;
    this.prefillTokens = prefillTokens;
  }

  boolean isBusy(WorkerLoad load, Candidate candidate) {
    long totalKvBlocks = candidate.totalKvBlocks();
    long activeBlocks = Math.max(load.activeBlocks(), candidate.reportedActiveBlocks());
    if (decodeBlocksFraction.isPresent()
        && totalKvBlocks > 0
        && activeBlocks > decodeBlocksFraction.getAsDouble() * totalKvBlocks) {
      return true;
    }
    return prefillTokens.isPresent() && load.activePrefillTokens() > prefillTokens.getAsLong();
  }
}
