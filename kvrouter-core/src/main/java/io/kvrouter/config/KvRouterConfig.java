package io.kvrouter.config;

import java.time.Duration;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * The settings of {@code --router-mode kv} and {@code approx}.
 *
 * @param kvEvents {@code --kv-events}: the index follows the workers' KV cache events; false
 *     (approximate mode): it learns from the router's own decisions
 * @param overlapScoreWeight {@code --kv-overlap-score-weight}
 * @param temperature {@code --router-temperature}
 * @param activeDecodeBlocksThreshold {@code --active-decode-blocks-threshold}; empty: off
 * @param activePrefillTokensThreshold {@code --active-prefill-tokens-threshold}; empty: off
 * @param ttl {@code --router-ttl-secs}: how long routed blocks are assumed cached
 * @param maxTreeSize {@code --router-max-tree-size}
 * @param pruneTargetRatio {@code --router-prune-target-ratio}
 * @param cost {@code --router-kv-cost}
 */
public record KvRouterConfig(
    boolean kvEvents,
    double overlapScoreWeight,
    double temperature,
    OptionalDouble activeDecodeBlocksThreshold,
    OptionalLong activePrefillTokensThreshold,
    Duration ttl,
    int maxTreeSize,
    double pruneTargetRatio,
    KvCost cost) {

  /** Dynamo's defaults (KV events on), no busy thresholds. */
  public static final KvRouterConfig DEFAULTS =
      new KvRouterConfig(
          true,
          1.0,
          0.0,
          OptionalDouble.empty(),
          OptionalLong.empty(),
          Duration.ofSeconds(120),
          1 << 20,
          0.8);

  /** Dynamo's defaults in approximate mode ({@code --no-kv-events}). */
  public static final KvRouterConfig APPROXIMATE = DEFAULTS.withKvEvents(false);

  public KvRouterConfig {
    Objects.requireNonNull(activeDecodeBlocksThreshold, "activeDecodeBlocksThreshold");
    Objects.requireNonNull(activePrefillTokensThreshold, "activePrefillTokensThreshold");
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(cost, "cost");
  }

  /** Settings with Dynamo's cost. */
  public KvRouterConfig(
      boolean kvEvents,
      double overlapScoreWeight,
      double temperature,
      OptionalDouble activeDecodeBlocksThreshold,
      OptionalLong activePrefillTokensThreshold,
      Duration ttl,
      int maxTreeSize,
      double pruneTargetRatio) {
    this(
        kvEvents,
        overlapScoreWeight,
        temperature,
        activeDecodeBlocksThreshold,
        activePrefillTokensThreshold,
        ttl,
        maxTreeSize,
        pruneTargetRatio,
        KvCost.DYNAMO);
  }

  /** Whether a busy threshold is set. */
  public boolean hasBusyThreshold() {
    return activeDecodeBlocksThreshold.isPresent() || activePrefillTokensThreshold.isPresent();
  }

  /** These settings with the two busy thresholds (empty: off). */
  public KvRouterConfig withBusyThresholds(
      OptionalDouble activeDecodeBlocksThreshold, OptionalLong activePrefillTokensThreshold) {
    return new KvRouterConfig(
        kvEvents,
        overlapScoreWeight,
        temperature,
        activeDecodeBlocksThreshold,
        activePrefillTokensThreshold,
        ttl,
        maxTreeSize,
        pruneTargetRatio,
        cost);
  }

  /** These settings with KV events on or off. */
  public KvRouterConfig withKvEvents(boolean kvEvents) {
    return new KvRouterConfig(
        kvEvents,
        overlapScoreWeight,
        temperature,
        activeDecodeBlocksThreshold,
        activePrefillTokensThreshold,
        ttl,
        maxTreeSize,
        pruneTargetRatio,
        cost);
  }

  /** These settings with {@code cost}. */
  public KvRouterConfig withCost(KvCost cost) {
    return new KvRouterConfig(
        kvEvents,
        overlapScoreWeight,
        temperature,
        activeDecodeBlocksThreshold,
        activePrefillTokensThreshold,
        ttl,
        maxTreeSize,
        pruneTargetRatio,
        cost);
  }
}
