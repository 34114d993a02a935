package io.kvrouter.app;

import io.kvrouter.events.zmq.ZmqEventPublisher;
import io.kvrouter.worker.SimulatedEngine;
import io.kvrouter.worker.kv.KvCacheSnapshot;
import io.kvrouter.worker.kv.VllmEvents;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** A simulated worker's KV cache seen from outside: its events published, its state as JSON. */
final class SimulatedWorkerEvents {
  private SimulatedWorkerEvents() {}

  /** Starts a publisher that sends every KV event of {@code engine}'s cache from now on. */
  static ZmqEventPublisher publish(SimulatedEngine engine, ZmqEventPublisher.Options options) {
    ZmqEventPublisher publisher = ZmqEventPublisher.start(options);
    engine.kvCache().subscribe(new VllmEvents(publisher::publish));
    return publisher;
  }

  /**
   * {@code {"capacity", "block_size", "blocks": [{"hash", "parent_hash", "tokens", "references"}]}}
   * with hashes as unsigned decimal strings (JSON numbers lose precision above 2^53).
   */
  static JsonObject stateJson(KvCacheSnapshot snapshot) {
    JsonArray blocks = new JsonArray();
    for (KvCacheSnapshot.CachedBlock block : snapshot.blocks()) {
      JsonArray tokens = new JsonArray();
      for (int token : block.tokens()) {
        tokens.add(token);
      }
      blocks.add(
          new JsonObject()
              .put("hash", Long.toUnsignedString(block.hash()))
              .put(
                  "parent_hash",
                  block.parentHash() == null ? null : Long.toUnsignedString(block.parentHash()))
              .put("tokens", tokens)
              .put("references", block.references()));
    }
    return new JsonObject()
        .put("capacity", snapshot.capacity())
        .put("block_size", snapshot.blockSize())
        .put("blocks", blocks);
  }
}
