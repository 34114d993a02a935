package io.kvrouter.protocol.vllm;

import java.util.List;
import java.util.Objects;

/**
 * One published batch of events (one engine step): vLLM's {@code KVEventBatch}.
 *
 * @param timestamp wall-clock seconds when the batch was made
 * @param dataParallelRank the publishing engine's data-parallel rank; {@code null} when absent
 */
public record VllmEventBatch(double timestamp, List<VllmEvent> events, Integer dataParallelRank) {
  public VllmEventBatch {
    events = List.copyOf(Objects.requireNonNull(events, "events"));
  }
}
