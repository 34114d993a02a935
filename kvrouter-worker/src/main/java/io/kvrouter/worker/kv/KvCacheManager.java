package io.kvrouter.worker.kv;

import io.kvrouter.protocol.vllm.VllmEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The KV cache of one simulated worker, kept the way vLLM's prefix cache and Dynamo's mocker keep
 * theirs (see {@code reference/dynamo-kv-router.md} §6), so that its events are the ground truth
 * the router's event plane is tested against.
 *
 * <p>Blocks are full blocks of {@code blockSize} tokens, identified by vLLM's {@code sha256_cbor}
 * chain hash ({@link VllmBlockHasher}); a partial block is not cached. A cached block is either
 * <em>active</em>, held by one or more requests (reference counted), or <em>inactive</em>: held by
 * none, still cached and reusable by the next request with the same prefix, and evictable, least
 * recently released first. At most {@code capacity} blocks (vLLM's {@code num_gpu_blocks}) are
 * cached.
 *
 * <ul>
 *   <li>{@link #allocate}: each full block of the prompt is reused if cached (an active block gains
 *       a reference, an inactive one is reactivated, neither emits an event) or stored in a free
 *       slot, evicting the least recently used inactive block when the cache is full ({@code
 *       BlockRemoved}). New blocks are announced by one {@code BlockStored} per run of consecutive
 *       new blocks, whose parent is the block just before the run ({@code null} at block 0), as
 *       vLLM and the mocker do. If the new blocks do not fit even after evicting every inactive
 *       block the sequence does not use itself, nothing changes and the allocation fails.
 *   <li>{@link #extend}: as output is generated, each block that fills is cached the same way (vLLM
 *       caches decode blocks too). If one does not fit, the request keeps what it holds and caches
 *       nothing more: the simulator's stand-in for vLLM preempting it, and it keeps the published
 *       chain free of gaps.
 *   <li>{@link #release}: the request's blocks lose a reference; those left with none become
 *       inactive, the last block first, so a sequence's tail is evicted before its prefix (vLLM
 *       frees a request's blocks in reverse for the same reason). No event.
 *   <li>{@link #clear}: vLLM's {@code reset_prefix_cache}: only when no request is running; drops
 *       every block and emits {@code AllBlocksCleared}.
 * </ul>
 *
 * <p>Because every use of a block uses its parent too, and release puts the parent behind its
 * children in the LRU order, a parent is never evicted before its cached children: the cached
 * blocks are always closed under "parent of", every {@code BlockStored} names a cached parent, and
 * in practice the new blocks of one call form a single run. (The property test holds the manager to
 * this; a consumer building a radix tree from the events never meets an orphan.)
 *
 * <p>Thread-safe. Operations hold one lock for their bookkeeping only; SHA-256 hashing happens
 * before it is taken. The events an operation produces are queued under the lock, so their order is
 * the order in which operations took it, and delivered to {@link KvEventListener}s after it is
 * released (see there). Calls for one request id must not overlap (a request's stream makes them
 * one after the other); ids must be unique among running requests.
 */
public final class KvCacheManager {
  private final int capacity;
  private final int blockSize;
  private final ThreadLocal<VllmBlockHasher> hashers;
  private final Object lock = new Object();

  /** Every cached block by engine hash, in the order stored. */
  private final Map<Long, Block> cached = new LinkedHashMap<>();

  /** Inactive blocks, least recently released first. */
  private final LinkedHashMap<Long, Block> inactive = new LinkedHashMap<>();

  private final Map<String, Holder> requests = new HashMap<>();
  private final OrderedDelivery delivery = new OrderedDelivery();
  private List<KvEventListener> listeners = List.of();

  /**
   * @param capacity blocks the cache holds, vLLM's {@code num_gpu_blocks}
   * @param blockSize tokens per block
   */
  public KvCacheManager(int capacity, int blockSize) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1 block: " + capacity);
    }
    if (blockSize < 1) {
      throw new IllegalArgumentException("blockSize must be >= 1 token: " + blockSize);
    }
    this.capacity = capacity;
    this.blockSize = blockSize;
    this.hashers = ThreadLocal.withInitial(() -> new VllmBlockHasher(blockSize));
  }

  public int capacity() {
    return capacity;
  }

  public int blockSize() {
    return blockSize;
  }

  /**
   * Holds the full blocks of a new request's {@code tokens} (its prompt).
   *
   * @return whether it succeeded; when it did not, nothing changed and the request is unknown
   * @throws IllegalStateException if {@code requestId} is already running
   */
  public KvAllocation allocate(String requestId, int[] tokens) {
    List<VllmBlockHash> hashes = hashers.get().hashBlocks(tokens);
    KvAllocation result;
    synchronized (lock) {
      if (requests.containsKey(requestId)) {
        throw new IllegalStateException("request " + requestId + " already holds KV blocks");
      }
      result = place(hashes, tokens, 0, null);
      if (result.allocated()) {
        Holder holder = new Holder();
        holder.add(hashes);
        requests.put(requestId, holder);
      }
    }
    delivery.drain();
    return result;
  }

  /** {@link #extend(String, int[], int)} over the whole array. */
  public KvAllocation extend(String requestId, int[] allTokensSoFar) {
    return extend(requestId, allTokensSoFar, allTokensSoFar.length);
  }

  /**
   * Caches the blocks of a running request that filled since it was allocated or last extended.
   *
   * @param tokens the request's prompt and output so far in {@code tokens[0..length)}; what was
   *     passed before must be unchanged
   * @return what happened to the new blocks: {@code allocated} is false when they did not fit (the
   *     request then caches nothing more) or caching had already stopped for it
   * @throws IllegalStateException if the request is not running
   */
  public KvAllocation extend(String requestId, int[] tokens, int length) {
    if (length < 0 || length > tokens.length) {
      throw new IllegalArgumentException("length " + length + " outside 0.." + tokens.length);
    }
    Holder holder;
    VllmBlockHash parent;
    int hashed;
    synchronized (lock) {
      holder = requests.get(requestId);
      if (holder == null) {
        throw new IllegalStateException("request " + requestId + " holds no KV blocks");
      }
      if (holder.stopped) {
        return new KvAllocation(false, 0, 0, 0);
      }
      parent = holder.last;
      hashed = holder.blocks.size();
    }
    int full = length / blockSize;
    if (full <= hashed) {
      return new KvAllocation(true, 0, 0, 0);
    }
    List<VllmBlockHash> hashes = hashers.get().hashBlocks(parent, tokens, hashed, full - hashed);
    KvAllocation result;
    synchronized (lock) {
      if (requests.get(requestId) != holder) {
        throw new IllegalStateException("request " + requestId + " was released while extending");
      }
      result = place(hashes, tokens, hashed, parent == null ? null : parent.value());
      if (result.allocated()) {
        holder.add(hashes);
      } else {
        holder.stopped = true;
      }
    }
    delivery.drain();
    return result;
  }

  /**
   * Drops the request's references; its blocks stay cached, those no other request holds become
   * inactive. Emits nothing.
   *
   * @return false if the request held nothing (unknown, refused or already released)
   */
  public boolean release(String requestId) {
    synchronized (lock) {
      Holder holder = requests.remove(requestId);
      if (holder == null) {
        return false;
      }
      List<Long> held = holder.blocks;
      for (int i = held.size() - 1; i >= 0; i--) {
        Block block = cached.get(held.get(i));
        if (--block.references == 0) {
          inactive.put(block.hash, block);
        }
      }
      return true;
    }
  }

  /**
   * Resets the prefix cache, as vLLM's {@code reset_prefix_cache}: drops every block and emits
   * {@code AllBlocksCleared}, even when it was empty.
   *
   * @return false, having done nothing, while any request is running
   */
  public boolean clear() {
    synchronized (lock) {
      if (!requests.isEmpty()) {
        return false;
      }
      cached.clear();
      inactive.clear();
      publish(List.of(new VllmEvent.AllBlocksCleared()));
    }
    delivery.drain();
    return true;
  }

  /** Blocks held by at least one running request now (cheap: no copy of the cache). */
  public int activeBlocks() {
    synchronized (lock) {
      return cached.size() - inactive.size();
    }
  }

  /** Requests holding blocks now. */
  public int activeRequests() {
    synchronized (lock) {
      return requests.size();
    }
  }

  /** What the cache holds now. */
  public KvCacheSnapshot snapshot() {
    synchronized (lock) {
      return snapshotLocked();
    }
  }

  /**
   * Registers {@code listener} for the events of every operation from now on, and returns the state
   * those events start from: applying them to the snapshot in order gives the cache's state after
   * each operation, with nothing missed or counted twice.
   */
  public KvCacheSnapshot subscribe(KvEventListener listener) {
    synchronized (lock) {
      List<KvEventListener> more = new ArrayList<>(listeners);
      more.add(listener);
      listeners = List.copyOf(more);
      return snapshotLocked();
    }
  }

  /** Stops delivering to {@code listener} events of operations from now on. */
  public void unsubscribe(KvEventListener listener) {
    synchronized (lock) {
      List<KvEventListener> fewer = new ArrayList<>(listeners);
      fewer.remove(listener);
      listeners = List.copyOf(fewer);
    }
  }

  /**
   * Places the blocks {@code hashes} (blocks {@code firstBlock..} of {@code tokens}) in the cache,
   * all or nothing, and queues the events. First checks they fit; then references the cached ones
   * (so evictions never take the sequence's own blocks), then stores the rest, evicting as needed.
   */
  private KvAllocation place(
      List<VllmBlockHash> hashes, int[] tokens, int firstBlock, Long parentOfFirst) {
    boolean[] present = new boolean[hashes.size()];
    int hits = 0;
    int ownInactive = 0;
    for (int i = 0; i < hashes.size(); i++) {
      Block block = cached.get(hashes.get(i).value());
      if (block != null) {
        present[i] = true;
        hits++;
        if (block.references == 0) {
          ownInactive++;
        }
      }
    }
    int missing = hashes.size() - hits;
    int free = capacity - cached.size() + inactive.size() - ownInactive;
    if (missing > free) {
      return new KvAllocation(false, hits, missing, free);
    }
    for (int i = 0; i < hashes.size(); i++) {
      if (present[i]) {
        Block block = cached.get(hashes.get(i).value());
        if (block.references++ == 0) {
          inactive.remove(block.hash);
        }
      }
    }
    List<VllmEvent> events = new ArrayList<>();
    StoredRun run = null;
    List<StoredRun> runs = new ArrayList<>();
    for (int i = 0; i < hashes.size(); i++) {
      if (present[i]) {
        run = null;
        continue;
      }
      if (cached.size() == capacity) {
        events.add(evictLeastRecentlyUsed());
      }
      Long parent = i == 0 ? parentOfFirst : Long.valueOf(hashes.get(i - 1).value());
      int start = (firstBlock + i) * blockSize;
      Block block =
          new Block(
              hashes.get(i).value(), parent, Arrays.copyOfRange(tokens, start, start + blockSize));
      cached.put(block.hash, block);
      if (run == null) {
        run = new StoredRun(parent);
        runs.add(run);
      }
      run.add(block);
    }
    for (StoredRun stored : runs) {
      events.add(stored.event(blockSize));
    }
    publish(events);
    return new KvAllocation(true, hits, missing, free);
  }

  private VllmEvent evictLeastRecentlyUsed() {
    Iterator<Block> oldest = inactive.values().iterator();
    Block victim = oldest.next();
    oldest.remove();
    cached.remove(victim.hash);
    return VllmEvent.BlockRemoved.of(List.of(victim.hash));
  }

  /** Queues {@code events} for the current listeners; called under the lock. */
  private void publish(List<VllmEvent> events) {
    if (events.isEmpty() || listeners.isEmpty()) {
      return;
    }
    List<VllmEvent> batch = List.copyOf(events);
    for (KvEventListener listener : listeners) {
      delivery.enqueue(() -> listener.onEvents(batch));
    }
  }

  private KvCacheSnapshot snapshotLocked() {
    List<KvCacheSnapshot.CachedBlock> blocks = new ArrayList<>(cached.size());
    for (Block block : cached.values()) {
      blocks.add(
          new KvCacheSnapshot.CachedBlock(
              block.hash, block.parent, block.tokens, block.references));
    }
    return new KvCacheSnapshot(capacity, blockSize, blocks, List.copyOf(inactive.keySet()));
  }

  /** One cached block. */
  private static final class Block {
    final long hash;
    final Long parent;
    final int[] tokens;
    int references = 1;

    Block(long hash, Long parent, int[] tokens) {
      this.hash = hash;
      this.parent = parent;
      this.tokens = tokens;
    }
  }

  /** The blocks a running request holds, in sequence order. */
  private static final class Holder {
    final List<Long> blocks = new ArrayList<>();
    VllmBlockHash last;
    boolean stopped;

    void add(List<VllmBlockHash> hashes) {
      for (VllmBlockHash hash : hashes) {
        blocks.add(hash.value());
      }
      if (!hashes.isEmpty()) {
        last = hashes.get(hashes.size() - 1);
      }
    }
  }

  /** Consecutive new blocks, announced by one {@code BlockStored}. */
  private static final class StoredRun {
    final Long parent;
    final List<Block> blocks = new ArrayList<>();

    StoredRun(Long parent) {
      this.parent = parent;
    }

    void add(Block block) {
      blocks.add(block);
    }

    VllmEvent event(int blockSize) {
      List<Long> hashes = new ArrayList<>(blocks.size());
      int[] tokens = new int[blocks.size() * blockSize];
      for (int i = 0; i < blocks.size(); i++) {
        hashes.add(blocks.get(i).hash);
        System.arraycopy(blocks.get(i).tokens, 0, tokens, i * blockSize, blockSize);
      }
      return VllmEvent.BlockStored.of(hashes, parent, tokens, blockSize);
    }
  }
}
