package io.kvrouter.worker.kv;

import io.kvrouter.protocol.vllm.VllmEvent;
import java.util.List;

/**
 * Receives the KV events of a {@link KvCacheManager}: one call per cache operation that changed
 * something, with that operation's events in the order they happened (evictions, then stores). A
 * publisher turns each call into one {@code KVEventBatch} with the next sequence number.
 *
 * <p>Calls never overlap and arrive in the order the operations took the manager's lock, but not
 * always on the thread that made the change: whichever thread is delivering when a change is made
 * delivers it too. Keep the callback short and never block in it (it runs on Vert.x event loops);
 * it may call back into the manager.
 */
@FunctionalInterface
public interface KvEventListener {
  void onEvents(List<VllmEvent> events);
}
