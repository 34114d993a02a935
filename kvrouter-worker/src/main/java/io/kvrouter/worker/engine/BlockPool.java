package io.kvrouter.worker.engine;

import io.kvrouter.protocol.KvCacheEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A prefix-caching KV block pool of fixed capacity, as vLLM and Dynamo's mocker keep one, that
 * reports every change as a Dynamo KV event ({@link KvCacheEvent}: block hash = sequence hash,
 * tokens hash = local hash).
 *
 * <p>A slot is either <em>reserved</em> (a block a running request is computing: private, not yet
 * reusable) or holds a <em>cached</em> block, named by its sequence hash. A cached block is
 * <em>active</em> while requests reference it, and <em>inactive</em> once none does: still cached
 * and reusable by a later prompt with that prefix, and evicted least recently released first when a
 * slot is needed ({@code Removed}). A reserved slot becomes cached when its block is computed
 * ({@code Stored}); if another request cached the same block meanwhile, the slot is freed and the
 * request shares the cached block. {@code reserved + cached ≤ capacity} always holds.
 *
 * <p>Not thread-safe: one engine's steps run one at a time.
 */
final class BlockPool {
  private final int capacity;
  private final Consumer<KvCacheEvent> events;
  private final Map<Long, Block> cached = new HashMap<>();

  /** Cached blocks no request references, least recently released first. */
  private final LinkedHashMap<Long, Block> inactive = new LinkedHashMap<>();

  private int reserved;

  BlockPool(int capacity, Consumer<KvCacheEvent> events) {
    this.capacity = capacity;
    this.events = events;
  }

  /** Slots in use: reserved, or cached whether active or not. */
  int usedSlots() {
    return reserved + cached.size();
  }

  /** Slots requests hold: reserved, or cached and referenced. */
  int activeSlots() {
    return reserved + cached.size() - inactive.size();
  }

  /** Slots free or held only by evictable blocks. */
  int availableSlots() {
    return capacity - activeSlots();
  }

  /** How many of {@code sequenceHashes}, from the first, are cached (at most {@code limit}). */
  int cachedPrefix(long[] sequenceHashes, int limit) {
    int n = 0;
    while (n < limit && n < sequenceHashes.length && cached.containsKey(sequenceHashes[n])) {
      n++;
    }
    return n;
  }

  /** Whether {@code sequenceHash} is cached and referenced by no request. */
  boolean isInactive(long sequenceHash) {
    return inactive.containsKey(sequenceHash);
  }

  /** References a cached block, reactivating it if it was inactive. */
  void acquire(long sequenceHash) {
    Block block = cached.get(sequenceHash);
    if (block == null) {
      throw new IllegalStateException("block " + Long.toHexString(sequenceHash) + " is not cached");
    }
    if (block.references++ == 0) {
      inactive.remove(sequenceHash);
    }
  }

  /** Drops a reference; a block left without any becomes the most recently released inactive. */
  void release(long sequenceHash) {
    Block block = cached.get(sequenceHash);
    if (block == null || block.references == 0) {
      throw new IllegalStateException("block " + Long.toHexString(sequenceHash) + " is not held");
    }
    if (--block.references == 0) {
      inactive.put(sequenceHash, block);
    }
  }

  /**
   * Reserves {@code slots} slots, evicting inactive blocks as needed.
   *
   * @return false, with nothing changed, if they cannot be had even by evicting every inactive
   *     block
   */
  boolean reserve(int slots) {
    if (slots > availableSlots()) {
      return false;
    }
    int toFree = usedSlots() + slots - capacity;
    if (toFree > 0) {
      List<Long> removed = new ArrayList<>(toFree);
      Iterator<Block> oldest = inactive.values().iterator();
      while (removed.size() < toFree) {
        Block victim = oldest.next();
        oldest.remove();
        cached.remove(victim.sequenceHash);
        removed.add(victim.sequenceHash);
      }
      events.accept(new KvCacheEvent.Removed(removed));
    }
    reserved += slots;
    return true;
  }

  /** Gives back reserved slots whose blocks will not be computed. */
  void unreserve(int slots) {
    if (slots > reserved) {
      throw new IllegalStateException(slots + " slots given back, " + reserved + " reserved");
    }
    reserved -= slots;
  }

  /**
   * Turns reserved slots into the computed blocks {@code sequence[from..to)} (with local hashes
   * {@code local}), each referenced once by the caller, and reports the new ones in one {@code
   * Stored} whose parent is block {@code from - 1}. A block already cached is shared instead and
   * its slot freed. Blocks must be new or cached in one run: a prefix cached by another request,
   * then blocks only this one computed.
   */
  void commit(long[] sequence, long[] local, int from, int to) {
    List<KvCacheEvent.StoredBlock> stored = new ArrayList<>(to - from);
    Long parent = from == 0 ? null : sequence[from - 1];
    for (int i = from; i < to; i++) {
      reserved--;
      if (cached.containsKey(sequence[i])) {
        acquire(sequence[i]);
        if (stored.isEmpty()) {
          parent = sequence[i];
        } else {
          // a duplicate after new blocks: end this run, start another after it
          events.accept(new KvCacheEvent.Stored(parent, stored));
          stored = new ArrayList<>(to - i);
          parent = sequence[i];
        }
      } else {
        Block block = new Block(sequence[i]);
        block.references = 1;
        cached.put(sequence[i], block);
        stored.add(new KvCacheEvent.StoredBlock(sequence[i], local[i]));
      }
    }
    if (!stored.isEmpty()) {
      events.accept(new KvCacheEvent.Stored(parent, stored));
    }
  }

  private static final class Block {
    final long sequenceHash;
    int references;

    Block(long sequenceHash) {
      this.sequenceHash = sequenceHash;
    }
  }
}
