package io.kvrouter.worker.kv;

import io.kvrouter.protocol.dynamo.DynamoRouterEvent;

/**
 * Receives each event a {@link WorkerKvEventLog} numbers, in id order, one call at a time (a
 * publisher puts them on the event plane, e.g. as {@code DynamoEventCodec} JSON on {@code
 * kv_events}). Calls come after the log's lock is released, on whichever thread delivers; keep them
 * short and never block.
 */
@FunctionalInterface
public interface DynamoEventListener {
  void onEvent(DynamoRouterEvent event);
}
