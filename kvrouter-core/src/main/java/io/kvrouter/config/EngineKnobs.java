package io.kvrouter.config;

import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The settings of a simulated engine, declared once and offered by two commands under one spelling:
 * {@code router.jar worker} takes them as named here ({@code --num-gpu-blocks}), the router's
 * {@code --mock-workers} with {@code mock-} in front ({@code --mock-num-gpu-blocks}). The names are
 * vLLM's and Dynamo mocker's where they have the knob. The block size is not among them: both
 * commands take {@link Settings#KV_CACHE_BLOCK_SIZE}, which router and workers must agree on.
 */
public final class EngineKnobs {
  /** As {@code router.jar worker} names them. */
  public static final EngineKnobs WORKER =
      new EngineKnobs(
          new Setting<>(
              "timing-model",
              null,
              "MODEL",
              "How requests are paced: fixed (--ttft-ms, then --itl-ms per token, whatever the"
                  + " load) or mocker (as router.jar simulate: requests queue and are batched in"
                  + " steps whose time follows Dynamo mocker's fit of a vLLM GPU, so time to first"
                  + " token grows with the uncached prompt and the queue). Default: mocker when"
                  + " --speedup-ratio is given, else fixed.",
              null,
              Parsers.oneOf(EngineTiming.class),
              false,
              Parsers.named(EngineTiming.class)),
          new Setting<>(
              "ttft-ms",
              null,
              "MS",
              "With --timing-model fixed: time to first token, in milliseconds.",
              "50",
              "an integer from 0 to 600000",
              false,
              Parsers::millis),
          new Setting<>(
              "itl-ms",
              null,
              "MS",
              "With --timing-model fixed: delay between tokens, in milliseconds.",
              "10",
              "an integer from 0 to 600000",
              false,
              Parsers::millis),
          new Setting<>(
              "speedup-ratio",
              null,
              "X",
              "With --timing-model mocker: run X times faster than the fitted GPU.",
              "1",
              "a number from 0.01 to 10000",
              false,
              Parsers.doubles(0.01, 10_000)),
          new Setting<>(
              "max-num-seqs",
              null,
              "N",
              "With --timing-model mocker: requests running at once (vLLM's max_num_seqs).",
              "256",
              "an integer from 1 to 1000000",
              false,
              Parsers.ints(1, 1_000_000)),
          new Setting<>(
              "max-num-batched-tokens",
              null,
              "N",
              "With --timing-model mocker: tokens computed per step; longer prompts are prefilled"
                  + " in chunks (vLLM's max_num_batched_tokens).",
              "8192",
              "an integer from 1 to 1073741824",
              false,
              Parsers.ints(1, 1 << 30)),
          new Setting<>(
              "watermark",
              null,
              "FRACTION",
              "With --timing-model mocker: fraction of the KV cache kept free when admitting a"
                  + " request.",
              "0.01",
              "a number from 0, below 1",
              false,
              Parsers.doubles(0, Math.nextDown(1.0))),
          new Setting<>(
              "num-gpu-blocks",
              null,
              "BLOCKS",
              "KV cache capacity in blocks of --kv-cache-block-size tokens (Dynamo mocker's"
                  + " num_gpu_blocks): prompt and output blocks are cached, reused by later"
                  + " requests with the same prefix and evicted least recently used first; a"
                  + " request whose prompt does not fit is refused (with the mocker timing model it"
                  + " waits for room, as in vLLM).",
              "16384",
              "an integer from 1 to 1000000000",
              false,
              Parsers.ints(1, 1_000_000_000)));

  /**
   * As the router names them for {@code --mock-workers}; {@code --mock-kv-blocks}, its name for the
   * KV capacity before the names were shared, is still accepted (docs/benchmarks.md records
   * commands with it).
   */
  public static final EngineKnobs MOCK = WORKER.prefixed("mock-", "kv-blocks");

  private final Setting<EngineTiming> timingModel;
  private final Setting<Duration> ttftMs;
  private final Setting<Duration> itlMs;
  private final Setting<Double> speedupRatio;
  private final Setting<Integer> maxNumSeqs;
  private final Setting<Integer> maxNumBatchedTokens;
  private final Setting<Double> watermark;
  private final Setting<Integer> numGpuBlocks;

  private EngineKnobs(
      Setting<EngineTiming> timingModel,
      Setting<Duration> ttftMs,
      Setting<Duration> itlMs,
      Setting<Double> speedupRatio,
      Setting<Integer> maxNumSeqs,
      Setting<Integer> maxNumBatchedTokens,
      Setting<Double> watermark,
      Setting<Integer> numGpuBlocks) {
    this.timingModel = timingModel;
    this.ttftMs = ttftMs;
    this.itlMs = itlMs;
    this.speedupRatio = speedupRatio;
    this.maxNumSeqs = maxNumSeqs;
    this.maxNumBatchedTokens = maxNumBatchedTokens;
    this.watermark = watermark;
    this.numGpuBlocks = numGpuBlocks;
  }

  public Setting<EngineTiming> timingModel() {
    return timingModel;
  }

  public Setting<Duration> ttftMs() {
    return ttftMs;
  }

  public Setting<Duration> itlMs() {
    return itlMs;
  }

  public Setting<Double> speedupRatio() {
    return speedupRatio;
  }

  public Setting<Integer> maxNumSeqs() {
    return maxNumSeqs;
  }

  public Setting<Integer> maxNumBatchedTokens() {
    return maxNumBatchedTokens;
  }

  public Setting<Double> watermark() {
    return watermark;
  }

  public Setting<Integer> numGpuBlocks() {
    return numGpuBlocks;
  }

  /** Every knob, in help order. */
  public List<Setting<?>> all() {
    return List.of(
        timingModel,
        ttftMs,
        itlMs,
        speedupRatio,
        maxNumSeqs,
        maxNumBatchedTokens,
        watermark,
        numGpuBlocks);
  }

  /**
   * The engine these knobs describe in {@code values}. The timing model is mocker when a speedup
   * ratio is given and no timing model is; the knobs of the other timing model do not apply.
   */
  SimulatedEngineConfig read(SettingValues values, int blockSize, int dataParallelSize) {
    EngineTiming timing = values.value(timingModel);
    if (timing == null) {
      timing = values.given(speedupRatio) ? EngineTiming.MOCKER : EngineTiming.FIXED;
    }
    return new SimulatedEngineConfig(
        timing,
        values.value(ttftMs),
        values.value(itlMs),
        values.value(speedupRatio),
        values.value(maxNumSeqs),
        values.value(maxNumBatchedTokens),
        values.value(watermark),
        blockSize,
        values.value(numGpuBlocks),
        dataParallelSize);
  }

  /**
   * These knobs named {@code prefix} + name, their help texts naming each other so, with {@code
   * prefix} + {@code kvBlocksAlias} also accepted for the KV capacity.
   */
  private EngineKnobs prefixed(String prefix, String kvBlocksAlias) {
    return new EngineKnobs(
        withPrefix(timingModel, prefix),
        withPrefix(ttftMs, prefix),
        withPrefix(itlMs, prefix),
        withPrefix(speedupRatio, prefix),
        withPrefix(maxNumSeqs, prefix),
        withPrefix(maxNumBatchedTokens, prefix),
        withPrefix(watermark, prefix),
        withPrefix(numGpuBlocks, prefix).withAliases(prefix + kvBlocksAlias));
  }

  private <T> Setting<T> withPrefix(Setting<T> knob, String prefix) {
    String description = knob.description();
    for (Setting<?> other : all()) {
      description =
          description.replaceAll(
              "(?<![a-z-])" + Pattern.quote(other.flag()) + "(?![a-z-])",
              "--" + prefix + other.name());
    }
    return knob.prefixed(prefix, description);
  }
}
