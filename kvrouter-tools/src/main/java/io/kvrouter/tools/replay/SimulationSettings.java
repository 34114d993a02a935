package io.kvrouter.tools.replay;

import io.kvrouter.config.KvCost;
import io.kvrouter.worker.engine.EngineSettings;
import java.util.Objects;

/**
 * How a trace is replayed.
 *
 * @param workers simulated workers, one engine each
 * @param engine each worker's engine
 * @param eventDelayMillis how long a KV event takes from the engine to the router's index
 * @param seed seeds the random policies
 * @param timelineIntervalMillis interval of the report's time series
 * @param kvCost the cost the {@code kv} and {@code approx} policies minimise ({@code
 *     --router-kv-cost})
 */
public record SimulationSettings(
    int workers,
    EngineSettings engine,
    double eventDelayMillis,
    long seed,
    double timelineIntervalMillis,
    KvCost kvCost) {

  public SimulationSettings {
    Objects.requireNonNull(kvCost, "kvCost");
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be >= 1: " + workers);
    }
    if (!(eventDelayMillis >= 0) || Double.isInfinite(eventDelayMillis)) {
      throw new IllegalArgumentException("event delay must be >= 0 ms: " + eventDelayMillis);
    }
    if (!(timelineIntervalMillis > 0)) {
      throw new IllegalArgumentException(
          "timeline interval must be > 0 ms: " + timelineIntervalMillis);
    }
  }
}
