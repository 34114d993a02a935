package io.kvrouter.protocol;

import java.util.Objects;

/** A KV cache event together with the worker rank it happened on (Dynamo's {@code RouterEvent}). */
public record RouterEvent(WorkerRank worker, KvCacheEvent event) {
  public RouterEvent {
    Objects.requireNonNull(worker, "worker");
    Objects.requireNonNull(event, "event");
  }
}
