package io.kvrouter.routing.schedule;

import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * Dynamo's busy thresholds, combined with OR: a rank is busy when its active blocks exceed {@code
 * activeDecodeBlocksThreshold * totalKvBlocks} (only when its KV capacity is known), or its active
 * prefill tokens exceed {@code activePrefillTokensThreshold}. Both compare the load before the
 * request being routed.
 */
final class BusyFilter {

  private final OptionalDouble decodeBlocksFraction;
  private final OptionalLong prefillTokens;

  BusyFilter(OptionalDouble decodeBlocksFraction, OptionalLong prefillTokens) {
    this.decodeBlocksFraction = decodeBlocksFraction;
    this.prefillTokens = prefillTokens;
  }

  boolean isBusy(WorkerLoad load, long totalKvBlocks) {
    if (decodeBlocksFraction.isPresent()
        && totalKvBlocks > 0
        && load.activeBlocks() > decodeBlocksFraction.getAsDouble() * totalKvBlocks) {
      return true;
    }
    return prefillTokens.isPresent() && load.activePrefillTokens() > prefillTokens.getAsLong();
  }
}
