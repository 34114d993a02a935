package io.kvrouter.config;

import java.time.Duration;
import java.util.Objects;

/**
 * One simulated engine: a {@code router.jar worker} process's, or each of the router's {@code
 * --mock-workers}. Both commands read it from the same settings ({@link EngineKnobs}) and build the
 * engine from it with the same factory.
 *
 * @param timing fixed delays, or the simulator's scheduler with Dynamo mocker's step times
 * @param timeToFirstToken with fixed timing: the delay before the first token
 * @param interTokenLatency with fixed timing: the delay between tokens
 * @param speedupRatio with mocker timing: how many times faster than the fitted GPU the engine runs
 * @param maxNumSeqs with mocker timing: most requests running at once
 * @param maxNumBatchedTokens with mocker timing: most tokens computed in one step
 * @param watermark with mocker timing: fraction of the KV cache kept free when admitting a request
 * @param blockSize tokens per KV cache block
 * @param numGpuBlocks KV cache capacity in blocks, of each data-parallel rank
 * @param dataParallelSize data-parallel ranks, each with its own KV cache
 */
public record SimulatedEngineConfig(
    EngineTiming timing,
    Duration timeToFirstToken,
    Duration interTokenLatency,
    double speedupRatio,
    int maxNumSeqs,
    int maxNumBatchedTokens,
    double watermark,
    int blockSize,
    int numGpuBlocks,
    int dataParallelSize) {

  public SimulatedEngineConfig {
    Objects.requireNonNull(timing, "timing");
    Objects.requireNonNull(timeToFirstToken, "timeToFirstToken");
    Objects.requireNonNull(interTokenLatency, "interTokenLatency");
    if (blockSize < 1 || numGpuBlocks < 1 || dataParallelSize < 1) {
      throw new IllegalArgumentException(
          "block size, KV blocks and data-parallel ranks must be at least 1: "
              + blockSize
              + ", "
              + numGpuBlocks
              + ", "
              + dataParallelSize);
    }
  }
}
