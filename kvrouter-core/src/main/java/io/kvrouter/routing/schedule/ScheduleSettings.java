package io.kvrouter.routing.schedule;

import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * The settings of the KV cost function and the busy filters.
 *
 * @param overlapScoreWeight weight of the prefill blocks in the cost ({@code
 *     --kv-overlap-score-weight}, Dynamo's default 1.0); finite and {@code >= 0}
 * @param temperature softmax temperature ({@code --router-temperature}, default 0.0: always the
 *     cheapest); finite and {@code >= 0}
 * @param blockSize tokens per KV block ({@code --kv-cache-block-size}); {@code > 0}
 * @param activeDecodeBlocksThreshold a worker rank is busy when its active blocks exceed this
 *     fraction of its KV blocks ({@code --active-decode-blocks-threshold}); empty: no such filter
 * @param activePrefillTokensThreshold a worker rank is busy when its active prefill tokens exceed
 *     this ({@code --active-prefill-tokens-threshold}); empty: no such filter
 */
public record ScheduleSettings(
    double overlapScoreWeight,
    double temperature,
    int blockSize,
    OptionalDouble activeDecodeBlocksThreshold,
    OptionalLong activePrefillTokensThreshold) {

  /** Dynamo's default {@code overlap_score_weight}. */
  public static final double DEFAULT_OVERLAP_SCORE_WEIGHT = 1.0;

  /** Dynamo's default {@code router_temperature}. */
  public static final double DEFAULT_TEMPERATURE = 0.0;

  public ScheduleSettings {
    if (!Double.isFinite(overlapScoreWeight) || overlapScoreWeight < 0) {
      throw new IllegalArgumentException(
          "overlapScoreWeight must be a finite number >= 0: " + overlapScoreWeight);
    }
    if (!Double.isFinite(temperature) || temperature < 0) {
      throw new IllegalArgumentException(
          "temperature must be a finite number >= 0: " + temperature);
    }
    if (blockSize <= 0) {
      throw new IllegalArgumentException("blockSize must be > 0: " + blockSize);
    }
    Objects.requireNonNull(activeDecodeBlocksThreshold, "activeDecodeBlocksThreshold");
    Objects.requireNonNull(activePrefillTokensThreshold, "activePrefillTokensThreshold");
    if (activeDecodeBlocksThreshold.isPresent()) {
      double fraction = activeDecodeBlocksThreshold.getAsDouble();
      if (!Double.isFinite(fraction) || fraction < 0) {
        throw new IllegalArgumentException(
            "activeDecodeBlocksThreshold must be a finite fraction >= 0: " + fraction);
      }
    }
    if (activePrefillTokensThreshold.isPresent() && activePrefillTokensThreshold.getAsLong() < 0) {
      throw new IllegalArgumentException(
          "activePrefillTokensThreshold must be >= 0: " + activePrefillTokensThreshold.getAsLong());
    }
  }

  /** Dynamo's defaults (weight 1.0, temperature 0.0, no busy filters) for {@code blockSize}. */
  public static ScheduleSettings defaults(int blockSize) {
    return new ScheduleSettings(
        DEFAULT_OVERLAP_SCORE_WEIGHT,
        DEFAULT_TEMPERATURE,
        blockSize,
        OptionalDouble.empty(),
        OptionalLong.empty());
  }

  /** These settings with {@code temperature}. */
  public ScheduleSettings withTemperature(double temperature) {
    return new ScheduleSettings(
        overlapScoreWeight,
        temperature,
        blockSize,
        activeDecodeBlocksThreshold,
        activePrefillTokensThreshold);
  }

  /** These settings with {@code overlapScoreWeight}. */
  public ScheduleSettings withOverlapScoreWeight(double overlapScoreWeight) {
    return new ScheduleSettings(
        overlapScoreWeight,
        temperature,
        blockSize,
        activeDecodeBlocksThreshold,
        activePrefillTokensThreshold);
  }

  /** These settings with the two busy thresholds (empty: filter off). */
  public ScheduleSettings withBusyThresholds(
      OptionalDouble activeDecodeBlocksThreshold, OptionalLong activePrefillTokensThreshold) {
    return new ScheduleSettings(
        overlapScoreWeight,
        temperature,
        blockSize,
        activeDecodeBlocksThreshold,
        activePrefillTokensThreshold);
  }
}
