package io.kvrouter.config;

import java.time.Duration;
import java.util.Objects;

/**
 * Simulated workers started inside the router process ({@code --mock-workers}).
 *
 * @param kvBlocks the KV cache capacity of each, in blocks: what it caches and declares to the
 *     router ({@code --mock-kv-blocks})
 */
public record MockWorkerConfig(
    int count, Duration timeToFirstToken, Duration interTokenLatency, long kvBlocks) {
  public MockWorkerConfig {
    Objects.requireNonNull(timeToFirstToken, "timeToFirstToken");
    Objects.requireNonNull(interTokenLatency, "interTokenLatency");
    if (kvBlocks < 1) {
      throw new IllegalArgumentException("kvBlocks must be >= 1");
    }
  }
}
