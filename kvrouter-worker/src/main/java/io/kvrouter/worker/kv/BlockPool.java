package io.kvrouter.worker.kv;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The KV cache of one simulated engine: a prefix-caching pool of {@code capacity} block slots
 * (vLLM's {@code num_gpu_blocks}), kept the way vLLM's prefix cache and Dynamo's mocker keep theirs
 * (slots, reference counts, least-recently-released eviction: {@link BlockTable}). It is the one
 * model of the cache, whoever drives it: the live worker with fixed pacing ({@link #allocate},
 * {@link #extend}), the engine's scheduler ({@link #admit}, {@link #commit}, {@link #hold}), and
 * the published events are its changes.
 *
 * <p>Two things are the caller's: how blocks are named, which each request brings as its {@link
 * SequenceBlocks} (vLLM's {@code sha256_cbor} over its tokens, or Dynamo's XXH3 hashes), and where
 * the changes go, its {@link BlockPoolListener}s ({@link VllmEvents} for vLLM's format, {@link
 * DynamoEvents} for Dynamo's).
 *
 * <p>Blocks are requested by <em>holders</em> (request ids, unique among running requests). A
 * holder's blocks are a prefix of its sequence; each is either found cached (a hit: an active block
 * gains a reference, an inactive one is reactivated, no event) or stored in a slot the holder
 * reserved, evicting the least recently released blocks when the cache is full ({@code Removed}).
 * New blocks are announced by one {@code Stored} per run of consecutive new blocks, whose parent is
 * the block just before the run. On {@link #release} the holder's blocks lose a reference, the last
 * block first, so a sequence's tail is evicted before its prefix (vLLM frees a request's blocks in
 * reverse for the same reason); no event. Because every use of a block uses its parent too, a
 * parent is never evicted before its cached children: the cached blocks are closed under "parent
 * of", and every {@code Stored} names a cached parent.
 *
 * <p>Thread-safe. Operations hold one lock for their bookkeeping only: names are hashed by the
 * sequences before (see {@link SequenceBlocks}). The changes an operation makes are queued under
 * the lock, so their order is the order in which operations took it, and delivered to the listeners
 * after it is released (see {@link BlockPoolListener}). Calls for one holder must not overlap.
 */
public final class BlockPool {
  private final int capacity;
  private final int blockSize;
  private final Object lock = new Object();
  private final BlockTable table; // guarded by lock
  private final Map<String, Holder> holders = new HashMap<>(); // guarded by lock
  private final OrderedDelivery delivery = new OrderedDelivery();
  private List<BlockPoolListener> listeners = List.of(); // guarded by lock

  /**
   * @param capacity block slots, vLLM's {@code num_gpu_blocks}
   * @param blockSize tokens per block
   */
  public BlockPool(int capacity, int blockSize) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1 block: " + capacity);
    }
    if (blockSize < 1) {
      throw new IllegalArgumentException("blockSize must be >= 1 token: " + blockSize);
    }
    this.capacity = capacity;
    this.blockSize = blockSize;
    this.table = new BlockTable(capacity);
  }

  public int capacity() {
    return capacity;
  }

  public int blockSize() {
    return blockSize;
  }

  /**
   * Holds the first {@code count} blocks of a new request's sequence, all or nothing: the cached
   * ones are reused, the others stored at once (a request whose prompt is computed when it
   * arrives).
   *
   * @return what happened; when not {@code allocated}, nothing changed and the holder is unknown
   * @throws IllegalStateException if {@code holder} already holds blocks
   */
  public KvAllocation allocate(String holder, SequenceBlocks blocks, int count) {
    return change(
        changes -> {
          Holder held = newHolder(holder);
          KvAllocation result = take(held, blocks, 0, count, count, capacity, changes);
          if (result.allocated()) {
            commit(held, blocks, count, changes);
            holders.put(holder, held);
          }
          return result;
        });
  }

  /**
   * Caches the blocks of a running request's sequence that filled since it was allocated or last
   * extended, up to block {@code count}, all or nothing. If they do not fit, the request keeps what
   * it holds and caches nothing more: the fixed-pace worker's stand-in for vLLM preempting it,
   * which keeps the published chain free of gaps.
   *
   * @return what happened to the new blocks: {@code allocated} is false when they did not fit or
   *     caching had already stopped for the request
   * @throws IllegalStateException if the holder is unknown
   */
  public KvAllocation extend(String holder, SequenceBlocks blocks, int count) {
    return change(
        changes -> {
          Holder held = holder(holder);
          int from = held.blocks.size();
          if (held.stopped) {
            return new KvAllocation(false, 0, 0, 0);
          }
          if (count <= from) {
            return new KvAllocation(true, 0, 0, 0);
          }
          KvAllocation result =
              take(held, blocks, from, count - from, count - from, capacity, changes);
          if (result.allocated()) {
            commit(held, blocks, count, changes);
          } else {
            held.stopped = true;
          }
          return result;
        });
  }

  /**
   * Admits a request to the engine, all or nothing: the longest cached prefix of its sequence, at
   * most {@code hitLimit} blocks, is reused, and slots are reserved for the rest of its first
   * {@code slots} blocks, to be {@link #commit committed} as they are computed.
   *
   * @param activeLimit most slots requests may hold with this one admitted (the engine's watermark)
   * @return what happened: {@code cachedBlocks} is the prefix reused; when not {@code allocated},
   *     nothing changed and the holder is unknown
   * @throws IllegalStateException if {@code holder} already holds blocks
   */
  public KvAllocation admit(
      String holder, SequenceBlocks blocks, int hitLimit, int slots, int activeLimit) {
    return change(
        changes -> {
          Holder held = newHolder(holder);
          KvAllocation result = take(held, blocks, 0, hitLimit, slots, activeLimit, changes);
          if (result.allocated()) {
            holders.put(holder, held);
          }
          return result;
        });
  }

  /**
   * Makes the holder hold {@code slots} slots in all, reserving the ones it lacks.
   *
   * @return false, with nothing changed, if they cannot be had even by evicting every inactive
   *     block
   * @throws IllegalStateException if the holder is unknown
   */
  public boolean hold(String holder, int slots) {
    return change(
        changes -> {
          Holder held = holder(holder);
          int needed = slots - held.blocks.size() - held.reserved;
          if (needed > table.available()) {
            return false;
          }
          if (needed > 0) {
            table.reserve(needed, changes);
            held.reserved += needed;
          }
          return true;
        });
  }

  /**
   * Turns the holder's reserved slots into its sequence's blocks up to block {@code count}, now
   * computed (nothing if it holds them already).
   *
   * @throws IllegalStateException if the holder is unknown or has too few slots reserved
   */
  public void commit(String holder, SequenceBlocks blocks, int count) {
    change(
        changes -> {
          commit(holder(holder), blocks, count, changes);
          return null;
        });
  }

  /**
   * Drops the holder's references and reservations; its blocks stay cached, those no other holder
   * references become inactive. Emits nothing.
   *
   * @return false if the holder held nothing (unknown, refused or already released)
   */
  public boolean release(String holder) {
    synchronized (lock) {
      Holder held = holders.remove(holder);
      if (held == null) {
        return false;
      }
      for (int i = held.blocks.size() - 1; i >= 0; i--) {
        table.release(held.blocks.get(i));
      }
      table.unreserve(held.reserved);
      return true;
    }
  }

  /**
   * Resets the prefix cache, as vLLM's {@code reset_prefix_cache}: drops every block and emits
   * {@code Cleared}, even when it was empty.
   *
   * @return false, having done nothing, while any holder is running
   */
  public boolean clear() {
    return change(
        changes -> {
          if (!holders.isEmpty()) {
            return false;
          }
          table.clear(changes);
          return true;
        });
  }

  /** Slots held by running requests now: reserved, or holding a block they reference. */
  public int activeBlocks() {
    synchronized (lock) {
      return table.active();
    }
  }

  /** Slots in use now: reserved, or holding a block, referenced or not. */
  public int usedBlocks() {
    synchronized (lock) {
      return table.used();
    }
  }

  /** Requests holding blocks now. */
  public int activeRequests() {
    synchronized (lock) {
      return holders.size();
    }
  }

  /** What the cache holds now. */
  public KvCacheSnapshot snapshot() {
    synchronized (lock) {
      return table.snapshot(blockSize);
    }
  }

  /**
   * Registers {@code listener} for the changes of every operation from now on, and returns the
   * state those changes start from: applying them to the snapshot in order gives the cache's state
   * after each operation, with nothing missed or counted twice.
   */
  public KvCacheSnapshot subscribe(BlockPoolListener listener) {
    synchronized (lock) {
      List<BlockPoolListener> more = new ArrayList<>(listeners);
      more.add(listener);
      listeners = List.copyOf(more);
      return table.snapshot(blockSize);
    }
  }

  /** Stops delivering to {@code listener} the changes of operations from now on. */
  public void unsubscribe(BlockPoolListener listener) {
    synchronized (lock) {
      List<BlockPoolListener> fewer = new ArrayList<>(listeners);
      fewer.remove(listener);
      listeners = List.copyOf(fewer);
    }
  }

  /**
   * Reuses the cached run of blocks {@code from..} (at most {@code hitLimit}) and reserves slots
   * for the rest of {@code slots} blocks, all or nothing: first checks the new slots can be had,
   * counting the inactive blocks it reuses as unavailable, and that active slots stay within {@code
   * activeLimit}; then references the hits (so evictions never take them) and reserves.
   */
  private KvAllocation take(
      Holder held,
      SequenceBlocks blocks,
      int from,
      int hitLimit,
      int slots,
      int activeLimit,
      List<KvChange> changes) {
    int hits = table.cachedRun(blocks, from, hitLimit);
    int reactivated = table.inactiveAmong(blocks, from, hits);
    int needed = slots - hits;
    int free = table.available() - reactivated;
    if (needed > free || table.active() + reactivated + needed > activeLimit) {
      return new KvAllocation(false, hits, needed, free);
    }
    for (int i = from; i < from + hits; i++) {
      table.acquire(blocks.hash(i));
      held.blocks.add(blocks.hash(i));
    }
    table.reserve(needed, changes);
    held.reserved += needed;
    return new KvAllocation(true, hits, needed, free);
  }

  /** Stores the holder's blocks up to {@code count} in its reserved slots. */
  private void commit(Holder held, SequenceBlocks blocks, int count, List<KvChange> changes) {
    int from = held.blocks.size();
    if (count <= from) {
      return;
    }
    if (count - from > held.reserved) {
      throw new IllegalStateException(
          (count - from) + " blocks to store, " + held.reserved + " slots reserved");
    }
    table.store(blocks, from, count, changes);
    held.reserved -= count - from;
    for (int i = from; i < count; i++) {
      held.blocks.add(blocks.hash(i));
    }
  }

  private Holder newHolder(String holder) {
    if (holders.containsKey(holder)) {
      throw new IllegalStateException("request " + holder + " already holds KV blocks");
    }
    return new Holder();
  }

  private Holder holder(String holder) {
    Holder held = holders.get(holder);
    if (held == null) {
      throw new IllegalStateException("request " + holder + " holds no KV blocks");
    }
    return held;
  }

  /**
   * Runs {@code operation} under the lock, queues the changes it adds to its list for the current
   * listeners there, and delivers them once the lock is released.
   */
  private <T> T change(Function<List<KvChange>, T> operation) {
    List<KvChange> changes = new ArrayList<>();
    T result;
    boolean queued = false;
    synchronized (lock) {
      result = operation.apply(changes);
      if (!changes.isEmpty()) {
        List<KvChange> batch = List.copyOf(changes);
        for (BlockPoolListener listener : listeners) {
          delivery.enqueue(() -> listener.onChanges(batch));
          queued = true;
        }
      }
    }
    if (queued) {
      delivery.drain();
    }
    return result;
  }

  /** What a running request holds: its sequence's first blocks, then reserved slots. */
  private static final class Holder {
    final List<Long> blocks = new ArrayList<>();
    int reserved;

    /** Caching stopped for it: an extension did not fit. */
    boolean stopped;
  }
}
