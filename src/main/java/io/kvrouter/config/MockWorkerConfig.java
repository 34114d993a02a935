package io.kvrouter.config;

import java.time.Duration;
import java.util.Objects;

/** Simulated workers started inside the router process ({@code --mock-workers}). */
public record MockWorkerConfig(int count, Duration timeToFirstToken, Duration interTokenLatency) {
  public MockWorkerConfig {
    Objects.requireNonNull(timeToFirstToken, "timeToFirstToken");
    Objects.requireNonNull(interTokenLatency, "interTokenLatency");
  }
}
