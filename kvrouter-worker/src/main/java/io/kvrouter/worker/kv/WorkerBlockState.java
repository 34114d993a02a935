package io.kvrouter.worker.kv;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One worker rank's cached blocks as its own events describe them, for {@link WorkerKvEventLog}'s
 * tree dump: engine hash → (parent engine hash, tokens hash). It applies events by the router
 * index's rules, so a router replaying the same events holds the same blocks: a {@code Stored}
 * whose parent is not held is rejected whole; a {@code Removed} drops the hashes it holds; {@code
 * Cleared} drops everything.
 *
 * <p>Not thread-safe: the log calls it under its lock.
 */
final class WorkerBlockState {
  private record Entry(Long parent, long tokensHash) {}

  /** Blocks by engine hash, in the order stored. */
  private final Map<Long, Entry> blocks = new LinkedHashMap<>();

  /**
   * Applies {@code event}; false (and nothing changed) if it is a store under an unknown parent.
   */
  boolean apply(KvCacheEvent event) {
    if (event instanceof KvCacheEvent.Stored stored) {
      Long parent = stored.parentBlockHash();
      if (parent != null && !blocks.containsKey(parent)) {
        return false;
      }
      for (StoredBlock block : stored.blocks()) {
        blocks.remove(block.blockHash()); // re-stored: moves to the end, after its new parent
        blocks.put(block.blockHash(), new Entry(parent, block.tokensHash()));
        parent = block.blockHash();
      }
    } else if (event instanceof KvCacheEvent.Removed removed) {
      for (long hash : removed.blockHashes()) {
        blocks.remove(hash);
      }
    } else {
      blocks.clear();
    }
    return true;
  }

  int size() {
    return blocks.size();
  }

  /**
   * Events that rebuild this state on an empty or stale router: {@code Cleared}, then one
   * single-block {@code Stored} per block, breadth-first from the sequence starts, each naming its
   * parent. A block whose chain to a sequence start is broken (its parent removed under it, which
   * an engine never does) is left out: the router could not match it either.
   */
  List<KvCacheEvent> dump() {
    Map<Long, List<Long>> children = new HashMap<>();
    ArrayDeque<Long> queue = new ArrayDeque<>();
    for (Map.Entry<Long, Entry> e : blocks.entrySet()) {
      Long parent = e.getValue().parent();
      if (parent == null) {
        queue.add(e.getKey());
      } else {
        children.computeIfAbsent(parent, p -> new ArrayList<>()).add(e.getKey());
      }
    }
    List<KvCacheEvent> out = new ArrayList<>(blocks.size() + 1);
    out.add(KvCacheEvent.cleared());
    Long hash;
    while ((hash = queue.poll()) != null) {
      Entry entry = blocks.get(hash);
      out.add(KvCacheEvent.stored(entry.parent(), new StoredBlock(hash, entry.tokensHash())));
      List<Long> below = children.get(hash);
      if (below != null) {
        queue.addAll(below);
      }
    }
    return out;
  }
}
