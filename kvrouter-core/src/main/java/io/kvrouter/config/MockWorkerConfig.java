package io.kvrouter.config;

import java.time.Duration;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * Simulated workers started inside the router process ({@code --mock-workers}).
 *
 * @param kvBlocks the KV cache capacity of each, in blocks: what it caches and declares to the
 *     router ({@code --mock-kv-blocks})
 * @param speedupRatio {@code --mock-speedup-ratio}: when present, the workers run the simulator's
 *     timing model (Dynamo mocker's) this many times faster than the fitted GPU, instead of the
 *     fixed delays
 */
public record MockWorkerConfig(
    int count,
    Duration timeToFirstToken,
    Duration interTokenLatency,
    long kvBlocks,
    OptionalDouble speedupRatio) {
  public MockWorkerConfig {
    Objects.requireNonNull(speedupRatio, "speedupRatio");
    Objects.requireNonNull(timeToFirstToken, "timeToFirstToken");
    Objects.requireNonNull(interTokenLatency, "interTokenLatency");
    if (kvBlocks < 1) {
      throw new IllegalArgumentException("kvBlocks must be >= 1");
    }
  }
}
