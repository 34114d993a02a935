package io.kvrouter.worker.kv;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The slots of a {@link BlockPool}, kept as vLLM's prefix cache and Dynamo's mocker keep theirs. A
 * slot is either <em>reserved</em> (for a block a request is computing: private, not reusable yet)
 * or holds a <em>cached</em> block, named by its engine hash. A cached block is <em>active</em>
 * while requests reference it and <em>inactive</em> once none does: still cached, reusable by a
 * later sequence with that prefix, and evicted least recently released first when a slot is needed.
 * {@code reserved + cached ≤ capacity} always holds.
 *
 * <p>Not thread-safe: the pool calls it under its lock. Each change is added, in order, to the list
 * the caller passes.
 */
final class BlockTable {
  private final int capacity;

  /** Every cached block by engine hash, in the order stored. */
  private final Map<Long, Entry> cached = new LinkedHashMap<>();

  /** Cached blocks no request references, least recently released first. */
  private final LinkedHashMap<Long, Entry> inactive = new LinkedHashMap<>();

  private int reserved;

  BlockTable(int capacity) {
    this.capacity = capacity;
  }

  /** Slots reserved or holding a block, active or not. */
  int used() {
    return reserved + cached.size();
  }

  /** Slots requests hold: reserved, or holding a referenced block. */
  int active() {
    return used() - inactive.size();
  }

  /** Slots free or holding a block that may be evicted. */
  int available() {
    return capacity - active();
  }

  /** How many of blocks {@code from, from + 1, …} (at most {@code count}) are cached in a row. */
  int cachedRun(SequenceBlocks blocks, int from, int count) {
    int n = 0;
    while (n < count && cached.containsKey(blocks.hash(from + n))) {
      n++;
    }
    return n;
  }

  /** Of blocks {@code [from, from + count)}, all cached, how many no request references. */
  int inactiveAmong(SequenceBlocks blocks, int from, int count) {
    int n = 0;
    for (int i = from; i < from + count; i++) {
      n += inactive.containsKey(blocks.hash(i)) ? 1 : 0;
    }
    return n;
  }

  /** References a cached block, reactivating it if it was inactive. */
  void acquire(long hash) {
    Entry entry = cached.get(hash);
    if (entry == null) {
      throw new IllegalStateException("block " + Long.toUnsignedString(hash) + " is not cached");
    }
    if (entry.references++ == 0) {
      inactive.remove(hash);
    }
  }

  /** Drops a reference; a block left without any becomes the most recently released inactive. */
  void release(long hash) {
    Entry entry = cached.get(hash);
    if (entry == null || entry.references == 0) {
      throw new IllegalStateException("block " + Long.toUnsignedString(hash) + " is not held");
    }
    if (--entry.references == 0) {
      inactive.put(hash, entry);
    }
  }

  /**
   * Reserves {@code slots} slots, evicting the least recently released blocks as needed (one {@code
   * Removed}).
   *
   * @throws IllegalStateException if they are not {@link #available}
   */
  void reserve(int slots, List<KvChange> changes) {
    if (slots > available()) {
      throw new IllegalStateException(slots + " slots wanted, " + available() + " available");
    }
    int toFree = used() + slots - capacity;
    if (toFree > 0) {
      List<Long> removed = new ArrayList<>(toFree);
      Iterator<Entry> oldest = inactive.values().iterator();
      while (removed.size() < toFree) {
        Entry victim = oldest.next();
        oldest.remove();
        cached.remove(victim.block.hash());
        removed.add(victim.block.hash());
      }
      changes.add(new KvChange.Removed(removed));
    }
    reserved += slots;
  }

  /** Gives back reserved slots whose blocks will not be computed. */
  void unreserve(int slots) {
    if (slots > reserved) {
      throw new IllegalStateException(slots + " slots given back, " + reserved + " reserved");
    }
    reserved -= slots;
  }

  /**
   * Turns {@code to - from} reserved slots into blocks {@code [from, to)} of {@code blocks}, each
   * referenced once, announcing each run of new blocks in one {@code Stored} whose parent is the
   * block before it. A block already cached (another request computed it meanwhile) is shared
   * instead and its slot freed.
   */
  void store(SequenceBlocks blocks, int from, int to, List<KvChange> changes) {
    unreserve(to - from);
    Long parent = from == 0 ? null : blocks.hash(from - 1);
    Long runParent = parent;
    List<KvBlock> run = new ArrayList<>();
    for (int i = from; i < to; i++) {
      long hash = blocks.hash(i);
      if (cached.containsKey(hash)) {
        acquire(hash);
        if (!run.isEmpty()) {
          changes.add(new KvChange.Stored(runParent, run));
          run = new ArrayList<>();
        }
      } else {
        if (run.isEmpty()) {
          runParent = parent;
        }
        KvBlock block = blocks.block(i);
        cached.put(hash, new Entry(block, parent));
        run.add(block);
      }
      parent = hash;
    }
    if (!run.isEmpty()) {
      changes.add(new KvChange.Stored(runParent, run));
    }
  }

  /** Drops every block; only while no request holds a slot. */
  void clear(List<KvChange> changes) {
    if (active() > 0) {
      throw new IllegalStateException(active() + " slots are held");
    }
    cached.clear();
    inactive.clear();
    changes.add(new KvChange.Cleared());
  }

  KvCacheSnapshot snapshot(int blockSize) {
    List<KvCacheSnapshot.CachedBlock> blocks = new ArrayList<>(cached.size());
    for (Entry entry : cached.values()) {
      KvBlock.Vllm vllm = entry.block instanceof KvBlock.Vllm v ? v : null;
      blocks.add(
          new KvCacheSnapshot.CachedBlock(
              entry.block.hash(),
              entry.parent,
              vllm == null ? new int[0] : vllm.tokens(),
              entry.references,
              vllm == null ? null : vllm.cacheSalt()));
    }
    return new KvCacheSnapshot(capacity, blockSize, blocks, List.copyOf(inactive.keySet()));
  }

  /** One cached block. */
  private static final class Entry {
    final KvBlock block;
    final Long parent;
    int references = 1;

    Entry(KvBlock block, Long parent) {
      this.block = block;
      this.parent = parent;
    }
  }
}
