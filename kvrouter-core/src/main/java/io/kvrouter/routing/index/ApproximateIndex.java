package io.kvrouter.routing.index;

import io.kvrouter.common.Ticker;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.WorkerRank;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Approximate mode (Dynamo's {@code --no-kv-events}, ai-dynamo/dynamo {@code
 * lib/kv-router/src/approx.rs}): when workers send no KV cache events, the router feeds its index
 * from its own routing decisions and forgets them after a time to live, or earlier when the index
 * grows too large.
 *
 * <p>Each decision ({@link #routed}) goes to the sink as one {@code Stored} event from the sequence
 * start, the router's sequence hashes standing in for the engine's block hashes; each block then
 * expires at now + ttl, and routing a block again pushes its expiry back. {@link #expire} turns the
 * blocks whose time is up into {@code Removed} events. When more than {@link Settings#maxTreeSize}
 * blocks are tracked over all ranks, the blocks that expire first are removed at once until {@link
 * Settings#pruneTarget()} remain.
 *
 * <h2>Why removal never strands a block</h2>
 *
 * A tracked entry is (rank, sequence hash) with an expiry and its position in the sequence. Entries
 * go, by expiry and by size, earliest expiry first and, among equal expiries, the larger position
 * first. A sequence hash chains every block before it, so any prompt that contains a block contains
 * its whole prefix too, and each {@link #routed} call gives all of its blocks the same expiry. So
 * whenever a block's expiry is set, its parent's is set to the same value in the same call; and
 * since "now" never goes back here (a ticker that does is clamped), an expiry set later is never
 * earlier. A parent's expiry is therefore always at least its child's, equal expiries are broken in
 * favour of the child (larger position) going first, and so a rank's tracked blocks stay closed
 * under prefixes: a parent is never removed while its child stays. The index then holds, per rank,
 * whole chains from the sequence start, and scores each rank a consistent prefix.
 *
 * <h2>Data structure and cost</h2>
 *
 * Per rank a map from sequence hash to its current {@code Entry}, and one min-heap ({@link
 * PriorityQueue}) of entries in removal order, with lazy deletion: re-routing a block puts a new
 * entry (with its new expiry) in the map and pushes it, leaving the old one in the heap; an entry
 * popped from the heap that is no longer the map's current entry for its key is stale and skipped.
 * With L live entries, the heap holds H &le; 2L + {@value #REBUILD_SLACK} entries between calls:
 * when a call leaves more, the heap is rebuilt from the map in O(L) (heapify), and it takes at
 * least L + {@value #REBUILD_SLACK} pushes to come round again, so rebuilding costs O(1) amortized
 * per push and refresh-heavy traffic cannot grow the heap without bound.
 *
 * <ul>
 *   <li>{@link #routed} with n blocks: O(n log H), plus the pruning it triggers.
 *   <li>{@link #expire} and pruning: O((r + s) log H) for r entries removed and s stale entries
 *       skipped; an entry is popped at most once, so stale ones are paid for by their push.
 *   <li>{@link #forgetWorker}: O(blocks of the worker); its heap entries turn stale.
 *   <li>A block re-routed at the same instant (same expiry) is not pushed again.
 * </ul>
 *
 * <h2>Threads</h2>
 *
 * Every method may be called from any thread. One lock guards the state, and the sink is called
 * while it is held, so that each rank's {@code Stored} and {@code Removed} events reach the sink in
 * the order they were decided ({@link KvEventSink#apply} only queues). The {@code Stored} event is
 * built before the lock is taken.
 *
 * <h2>Time</h2>
 *
 * All time comes from the {@link Ticker} given (in production {@link Ticker#SYSTEM}); there is no
 * wall clock. Times are compared by the sign of their difference, so the ticker may start anywhere
 * and wrap around, as long as the spread of the times compared stays below 2<sup>62</sup> ns.
 *
 * <h2>Inputs</h2>
 *
 * Sequence hashes are assumed to chain (each identifies its whole prefix, as {@code
 * io.kvrouter.protocol.hash.BlockHasher} computes them), so one hash never repeats within a
 * sequence nor stands at two positions. A repeated hash within one call makes the index reject that
 * {@code Stored} event (counted as an invalid block sequence) while it is still tracked here; its
 * later {@code Removed} then counts as block not found. Nothing else is lost.
 */
public final class ApproximateIndex {

  /** Heap entries allowed beyond twice the live entries before the heap is rebuilt. */
  static final int REBUILD_SLACK = 1024;

  /**
   * Settings of approximate mode.
   *
   * @param ttl how long a routed block is remembered after it was last routed (Dynamo's {@code
   *     --router-ttl}); positive, at most {@link #MAX_TTL}
   * @param maxTreeSize the most blocks tracked over all ranks before pruning; positive
   * @param pruneTargetRatio pruning keeps {@code floor(maxTreeSize * pruneTargetRatio)} blocks; in
   *     (0, 1]
   */
  public record Settings(Duration ttl, int maxTreeSize, double pruneTargetRatio) {

    /** The longest ttl: 100 years, well inside the 2<sup>62</sup> ns that times may spread over. */
    public static final Duration MAX_TTL = Duration.ofDays(36_500);

    // declared after MAX_TTL, which the constructor reads
    /** Dynamo's defaults: 120 s, 2<sup>20</sup> blocks, prune to 80%. */
    public static final Settings DEFAULTS = new Settings(Duration.ofSeconds(120), 1 << 20, 0.8);

    public Settings {
      Objects.requireNonNull(ttl, "ttl");
      if (ttl.isNegative() || ttl.isZero() || ttl.compareTo(MAX_TTL) > 0) {
        throw new IllegalArgumentException(
            "ttl must be positive and at most " + MAX_TTL.toDays() + " days: " + ttl);
      }
      if (maxTreeSize <= 0) {
        throw new IllegalArgumentException("maxTreeSize must be > 0 blocks: " + maxTreeSize);
      }
      if (!(pruneTargetRatio > 0 && pruneTargetRatio <= 1)) {
        throw new IllegalArgumentException(
            "pruneTargetRatio must be in (0, 1]: " + pruneTargetRatio);
      }
    }

    /** Blocks kept by size pruning: {@code floor(maxTreeSize * pruneTargetRatio)}. */
    public int pruneTarget() {
      return (int) Math.floor(maxTreeSize * pruneTargetRatio);
    }
  }

  /**
   * One tracked block as of one routing decision; also its heap entry. Ordered by removal: earliest
   * expiry first, then the larger position (leaves before prefixes).
   */
  private static final class Entry implements Comparable<Entry> {
    final WorkerRank rank;
    final long sequenceHash;
    final long expiry;
    final int position;

    Entry(WorkerRank rank, long sequenceHash, long expiry, int position) {
      this.rank = rank;
      this.sequenceHash = sequenceHash;
      this.expiry = expiry;
      this.position = position;
    }

    @Override
    public int compareTo(Entry o) {
      long d = expiry - o.expiry; // wrap-safe
      if (d != 0) {
        return d < 0 ? -1 : 1;
      }
      return Integer.compare(o.position, position);
    }
  }

  private final KvEventSink sink;
  private final Settings settings;
  private final long ttlNanos;
  private final int pruneTarget;
  private final Ticker ticker;
  private final ReentrantLock lock = new ReentrantLock();

  // guarded by lock
  private final Map<WorkerRank, LongKeyTable<Entry>> ranks = new HashMap<>();
  private PriorityQueue<Entry> heap = new PriorityQueue<>();
  private int live;
  private long lastNow;

  public ApproximateIndex(KvEventSink sink, Settings settings, Ticker ticker) {
    this.sink = Objects.requireNonNull(sink, "sink");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.ttlNanos = settings.ttl().toNanos();
    this.pruneTarget = settings.pruneTarget();
    this.lastNow = ticker.nanos();
  }

  public Settings settings() {
    return settings;
  }

  /**
   * The router sent {@code worker} a prompt whose complete blocks have these local hashes ({@code
   * tokens_hash}) and sequence hashes, in order. Stores them on the sink as one {@code Stored}
   * event from the sequence start, with block hash = sequence hash and tokens hash = local hash;
   * every block expires at now + ttl (routing it again pushes that back); then, if more than {@code
   * maxTreeSize} blocks are tracked over all ranks, removes the earliest to expire (leaves first)
   * until {@link Settings#pruneTarget()} remain. No blocks: nothing happens.
   *
   * @throws IllegalArgumentException if the arrays differ in length
   */
  public void routed(WorkerRank worker, long[] localHashes, long[] sequenceHashes) {
    Objects.requireNonNull(worker, "worker");
    Objects.requireNonNull(localHashes, "localHashes");
    Objects.requireNonNull(sequenceHashes, "sequenceHashes");
    int n = localHashes.length;
    if (sequenceHashes.length != n) {
      throw new IllegalArgumentException(
          "localHashes and sequenceHashes differ in length: " + n + " != " + sequenceHashes.length);
    }
    if (n == 0) {
      return;
    }
    List<StoredBlock> blocks = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      blocks.add(new StoredBlock(sequenceHashes[i], localHashes[i]));
    }
    KvCacheEvent.Stored stored = new KvCacheEvent.Stored(null, blocks);
    lock.lock();
    try {
      long expiry = now() + ttlNanos;
      LongKeyTable<Entry> entries =
          ranks.computeIfAbsent(worker, k -> new LongKeyTable<>(e -> e.sequenceHash));
      for (int i = 0; i < n; i++) {
        long hash = sequenceHashes[i];
        Entry previous = entries.get(hash);
        if (previous != null && previous.expiry == expiry && previous.position == i) {
          continue; // routed again at the same instant: its heap entry is still current
        }
        Entry entry = new Entry(worker, hash, expiry, i);
        entries.put(entry);
        heap.add(entry);
        if (previous == null) {
          live++;
        }
      }
      sink.apply(worker, stored);
      if (live > settings.maxTreeSize()) {
        Map<WorkerRank, List<Long>> removed = new LinkedHashMap<>();
        while (live > pruneTarget) {
          removeLive(heap.poll(), removed);
        }
        applyRemoved(removed);
      }
      rebuildIfBloated();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Removes every block whose expiry is now or earlier, as one {@code Removed} event per rank on
   * the sink (leaves before their prefixes), and returns how many blocks went.
   */
  public int expire() {
    lock.lock();
    try {
      long now = now();
      Map<WorkerRank, List<Long>> removed = new LinkedHashMap<>();
      int count = 0;
      for (Entry top = heap.peek(); top != null && top.expiry - now <= 0; top = heap.peek()) {
        count += removeLive(heap.poll(), removed) ? 1 : 0;
      }
      applyRemoved(removed);
      rebuildIfBloated();
      return count;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Forgets every block tracked for every rank of {@code workerId}. Does not call the sink: whoever
   * removes the worker removes it from the index too ({@link KvIndexer#removeWorker}).
   */
  public void forgetWorker(String workerId) {
    Objects.requireNonNull(workerId, "workerId");
    lock.lock();
    try {
      Iterator<Map.Entry<WorkerRank, LongKeyTable<Entry>>> it = ranks.entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry<WorkerRank, LongKeyTable<Entry>> e = it.next();
        if (e.getKey().workerId().equals(workerId)) {
          live -= e.getValue().size(); // its heap entries are stale from now on
          it.remove();
        }
      }
      rebuildIfBloated();
    } finally {
      lock.unlock();
    }
  }

  /** Blocks tracked now over all ranks. */
  public int trackedBlocks() {
    lock.lock();
    try {
      return live;
    } finally {
      lock.unlock();
    }
  }

  /** Entries in the heap, live and stale: for tests. */
  int heapSize() {
    lock.lock();
    try {
      return heap.size();
    } finally {
      lock.unlock();
    }
  }

  // ---- under the lock ------------------------------------------------------------------------

  /** The ticker's time, never before the last time read, so expiries only move forward. */
  private long now() {
    long t = ticker.nanos();
    if (t - lastNow < 0) {
      t = lastNow;
    }
    lastNow = t;
    return t;
  }

  /** If {@code entry} is current, forgets it and adds it to {@code removed}; false if stale. */
  private boolean removeLive(Entry entry, Map<WorkerRank, List<Long>> removed) {
    LongKeyTable<Entry> entries = ranks.get(entry.rank);
    if (entries == null || entries.get(entry.sequenceHash) != entry) {
      return false;
    }
    entries.remove(entry.sequenceHash);
    if (entries.size() == 0) {
      ranks.remove(entry.rank);
    }
    live--;
    removed.computeIfAbsent(entry.rank, k -> new ArrayList<>()).add(entry.sequenceHash);
    return true;
  }

  private void applyRemoved(Map<WorkerRank, List<Long>> removed) {
    for (Map.Entry<WorkerRank, List<Long>> e : removed.entrySet()) {
      sink.apply(e.getKey(), new KvCacheEvent.Removed(e.getValue()));
    }
  }

  private void rebuildIfBloated() {
    if (heap.size() <= 2L * live + REBUILD_SLACK) {
      return;
    }
    List<Entry> current = new ArrayList<>(live);
    for (LongKeyTable<Entry> entries : ranks.values()) {
      entries.forEach(current::add);
    }
    heap = new PriorityQueue<>(current); // heapify, O(live)
  }
}
