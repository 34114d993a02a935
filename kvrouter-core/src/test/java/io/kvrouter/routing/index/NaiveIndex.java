package io.kvrouter.routing.index;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.routing.index.RadixTree.HeldBlock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The model the tree is held against: per worker rank, a map from block hash to (parent hash,
 * tokens hash), exactly as the engine reported it, and matches computed by brute force.
 */
final class NaiveIndex {
  private final Map<WorkerRank, Map<Long, HeldBlock>> workers = new HashMap<>();

  Outcome apply(WorkerRank rank, KvCacheEvent event) {
    Map<Long, HeldBlock> held = workers.computeIfAbsent(rank, k -> new HashMap<>());
    if (event instanceof KvCacheEvent.Stored) {
      KvCacheEvent.Stored stored = (KvCacheEvent.Stored) event;
      Long parent = stored.parentBlockHash();
      if (parent != null && !held.containsKey(parent)) {
        return Outcome.PARENT_BLOCK_NOT_FOUND;
      }
      // the parent and its ancestors by hash, up to the start or to a hash no longer held
      Set<Long> above = new HashSet<>();
      for (Long h = parent; h != null; ) {
        above.add(h);
        HeldBlock b = held.get(h);
        h = b == null ? null : b.parentHash();
      }
      for (StoredBlock b : stored.blocks()) {
        if (!above.add(b.blockHash())) {
          return Outcome.INVALID_BLOCK_SEQUENCE;
        }
      }
      Long previous = parent;
      for (StoredBlock b : stored.blocks()) {
        held.put(b.blockHash(), new HeldBlock(previous, b.tokensHash()));
        previous = b.blockHash();
      }
      return Outcome.APPLIED;
    }
    if (event instanceof KvCacheEvent.Removed) {
      Outcome outcome = Outcome.APPLIED;
      for (long h : ((KvCacheEvent.Removed) event).blockHashes()) {
        if (held.remove(h) == null) {
          outcome = Outcome.BLOCK_NOT_FOUND;
        }
      }
      return outcome;
    }
    held.clear();
    return Outcome.APPLIED;
  }

  void removeWorker(String workerId) {
    workers.keySet().removeIf(rank -> rank.workerId().equals(workerId));
  }

  /** Per rank, the longest prefix of {@code localHashes} it holds a chain of blocks for. */
  Map<WorkerRank, Integer> scores(long[] localHashes) {
    Map<WorkerRank, Integer> scores = new HashMap<>();
    for (Map.Entry<WorkerRank, Map<Long, HeldBlock>> e : workers.entrySet()) {
      int depth = score(e.getValue(), localHashes);
      if (depth > 0) {
        scores.put(e.getKey(), depth);
      }
    }
    return scores;
  }

  private static int score(Map<Long, HeldBlock> held, long[] localHashes) {
    Set<Long> frontier = null; // null stands for the sequence start
    int depth = 0;
    for (long local : localHashes) {
      Set<Long> next = new HashSet<>();
      for (Map.Entry<Long, HeldBlock> b : held.entrySet()) {
        HeldBlock block = b.getValue();
        boolean parentOnPath =
            frontier == null ? block.parentHash() == null : frontier.contains(block.parentHash());
        if (parentOnPath && block.tokensHash() == local) {
          next.add(b.getKey());
        }
      }
      if (next.isEmpty()) {
        break;
      }
      frontier = next;
      depth++;
    }
    return depth;
  }

  Map<WorkerRank, Long> cachedBlocks() {
    Map<WorkerRank, Long> counts = new HashMap<>();
    workers.forEach((rank, held) -> counts.put(rank, (long) held.size()));
    return counts;
  }

  Map<WorkerRank, Map<Long, HeldBlock>> heldBlocks() {
    Map<WorkerRank, Map<Long, HeldBlock>> copy = new HashMap<>();
    workers.forEach((rank, held) -> copy.put(rank, new HashMap<>(held)));
    return copy;
  }

  /** The rank's held hashes in ascending order, for deterministic picks. */
  List<Long> heldHashes(WorkerRank rank) {
    Map<Long, HeldBlock> held = workers.get(rank);
    List<Long> hashes = held == null ? new ArrayList<>() : new ArrayList<>(held.keySet());
    hashes.sort(null);
    return hashes;
  }

  boolean holds(WorkerRank rank, long hash) {
    Map<Long, HeldBlock> held = workers.get(rank);
    return held != null && held.containsKey(hash);
  }

  /** {@code hash} and its ancestors by hash, nearest first. */
  List<Long> chain(WorkerRank rank, long hash) {
    Map<Long, HeldBlock> held = workers.getOrDefault(rank, Map.of());
    List<Long> chain = new ArrayList<>();
    for (Long h = hash; h != null; ) {
      chain.add(h);
      HeldBlock b = held.get(h);
      h = b == null ? null : b.parentHash();
    }
    return chain;
  }
}
