package io.kvrouter.worker.kv;

import io.kvrouter.protocol.vllm.VllmEvent;
import java.util.List;

/**
 * Receives the KV events of a {@link BlockPool} in vLLM's format (through {@link VllmEvents}): one
 * call per cache operation that changed something, with that operation's events in the order they
 * happened (evictions, then stores). A publisher turns each call into one {@code KVEventBatch} with
 * the next sequence number.
 *
 * <p>Calls come as {@link BlockPoolListener}'s do: never overlapping, in the order the operations
 * took the pool's lock, on whichever thread delivers. Keep the callback short and never block in it
 * (it runs on Vert.x event loops); it may call back into the pool.
 */
@FunctionalInterface
public interface KvEventListener {
  void onEvents(List<VllmEvent> events);
}
