package io.kvrouter.config;

import java.util.Objects;

/**
 * Simulated workers started inside the router process ({@code --mock-workers}), each with one
 * engine of {@code engine}: the KV capacity it caches and declares to the router is {@code
 * engine.numGpuBlocks()} ({@code --mock-num-gpu-blocks}).
 */
public record MockWorkerConfig(int count, SimulatedEngineConfig engine) {
  public MockWorkerConfig {
    Objects.requireNonNull(engine, "engine");
  }
}
