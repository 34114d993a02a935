package io.kvrouter.routing.index;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.WorkerRank;

/**
 * Where event-plane subscribers deliver KV cache events. Implementations take the event over and
 * return at once: callers may be event loops, and may call from several threads.
 */
public interface KvEventSink {

  /** Applies {@code event}, which happened on {@code worker}, after the ones given before it. */
  void apply(WorkerRank worker, KvCacheEvent event);
}
