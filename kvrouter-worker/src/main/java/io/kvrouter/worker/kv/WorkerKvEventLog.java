package io.kvrouter.worker.kv;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult;
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.protocol.vllm.SaltedChains;
import io.kvrouter.protocol.vllm.VllmCacheSalt;
import io.kvrouter.protocol.vllm.VllmEvent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker side of Dynamo's KV event recovery ({@code LocalKvIndexer}; docs/architecture.md,
 * "Event plane") for one simulated worker rank: it follows the rank's {@link BlockPool}, turns each
 * vLLM event into Dynamo's form as Dynamo's publisher does, numbers them, hands them to {@link
 * DynamoEventListener}s (the publisher), and answers the router's recovery query {@link
 * #query(Long, Long)} from what it keeps:
 *
 * <pre>
 *   BlockPool ─vLLM events─▶ convert ──▶ id 0,1,2,… ──┬─▶ ring buffer (last N, default 1024)
 *                                                            ├─▶ block state (for tree dumps)
 *                                                            └─▶ listeners, in id order
 * </pre>
 *
 * <h2>Conversion (Dynamo's {@code KvEventPublisher})</h2>
 *
 * <ul>
 *   <li>{@code BlockStored} → {@code Stored}: {@code parent_hash} = the engine's parent hash,
 *       {@code block_hash} = the engine's hash, {@code tokens_hash} = the router's {@link
 *       BlockHasher} local hash of the block's tokens, seeded by the event's LoRA name, if any, and
 *       by its cache namespace, if any: the tagged salt in the first block's {@code extra_keys}
 *       ({@code VllmCacheSalt#namespaceIn}), else, for a store that continues a salted sequence,
 *       its parent's ({@code SaltedChains}). Only complete blocks are published: the event is cut
 *       at the first block whose tokens are not all there. Stores of another block size than the
 *       pool's are not published.
 *   <li>{@code BlockRemoved} → {@code Removed}; {@code AllBlocksCleared} → {@code Cleared}.
 *   <li>Events of another tier than the GPU are not published (the router indexes GPU blocks).
 * </ul>
 *
 * Every published event gets the next id and enters the buffer, so a slice of the buffer is exactly
 * the stream a router missed. (Dynamo's buffer keeps only events its own indexer applied; ours
 * applies by the router's rules and a store it rejects would be rejected by the router too, so
 * keeping it changes nothing and keeps the ids gap-free. A real engine never sends one.)
 *
 * <h2>Consistency</h2>
 *
 * One lock guards the id counter, the block state, the buffer and the listener list. Each event is
 * numbered, applied to the state and buffered under it, and a query reads the state and the newest
 * id under it, so a tree dump reflects exactly the events up to its {@code lastEventId}: never half
 * of a batch, never an event the id does not count. Converting (hashing tokens) happens before the
 * lock. Listener calls are queued under the lock and run after it is released, one at a time in
 * queue order (the pool's lock-free drain), so they arrive in id order without ever running under
 * the lock; a listener added by {@link #subscribe} receives exactly the events after the id it
 * returns.
 *
 * <p>Thread-safe.
 */
public final class WorkerKvEventLog implements KvEventListener, AutoCloseable {
  /** Events kept for recovery when not configured (Dynamo's worker-local indexer buffer). */
  public static final int DEFAULT_BUFFER = 1024;

  private static final Logger LOG = LoggerFactory.getLogger(WorkerKvEventLog.class);

  private final WorkerRank rank;
  private final BlockHasher hasher;
  private final int bufferSize;
  private final Object lock = new Object();
  private final ArrayDeque<DynamoRouterEvent> buffer; // guarded by lock, consecutive ids
  private final WorkerBlockState state = new WorkerBlockState(); // guarded by lock
  private final SaltedChains saltedChains = new SaltedChains(); // written in event order
  private final OrderedDelivery delivery = new OrderedDelivery();
  private List<DynamoEventListener> listeners = List.of(); // guarded by lock
  private long nextId; // guarded by lock
  private BlockPool followed;
  private BlockPoolListener following;

  /**
   * A log for {@code rank} fed through {@link #onEvents}, starting empty with event id 0.
   *
   * @param blockSize tokens per block, as the engine's
   * @param bufferSize events kept for {@link #query}, at least 1
   */
  public WorkerKvEventLog(WorkerRank rank, int blockSize, int bufferSize) {
    this.rank = Objects.requireNonNull(rank, "rank");
    this.hasher = BlockHasher.of(blockSize);
    if (bufferSize < 1) {
      throw new IllegalArgumentException("bufferSize must be >= 1 event: " + bufferSize);
    }
    this.bufferSize = bufferSize;
    this.buffer = new ArrayDeque<>(Math.min(bufferSize, 4096));
  }

  /** {@link #attach(BlockPool, WorkerRank, int)} with {@link #DEFAULT_BUFFER}. */
  public static WorkerKvEventLog attach(BlockPool pool, WorkerRank rank) {
    return attach(pool, rank, DEFAULT_BUFFER);
  }

  /**
   * A log following {@code pool} (its blocks named by vLLM, {@link VllmSequence}) from now on. What
   * the cache already holds becomes the log's starting state (no event ids); the first change is
   * event 0. {@link #close} stops following.
   */
  public static WorkerKvEventLog attach(BlockPool pool, WorkerRank rank, int bufferSize) {
    WorkerKvEventLog log = new WorkerKvEventLog(rank, pool.blockSize(), bufferSize);
    BlockPoolListener following = new VllmEvents(log);
    // Hold our lock across subscribing and seeding: events the pool delivers meanwhile (on
    // another thread) wait in onEvents until the snapshot they follow is in place. The pool never
    // calls listeners under its own lock, so this lock order cannot deadlock.
    synchronized (log.lock) {
      KvCacheSnapshot start = pool.subscribe(following);
      for (KvCacheSnapshot.CachedBlock block : start.blocks()) { // parents before children
        String namespace =
            log.saltedChains.namespaceOf(
                block.parentHash(), VllmCacheSalt.namespaceOf(block.cacheSalt()));
        log.saltedChains.stored(List.of(block.hash()), namespace);
        log.state.apply(
            KvCacheEvent.stored(
                block.parentHash(),
                new StoredBlock(
                    block.hash(), log.hasherFor(null, namespace).localHash(block.tokens(), 0))));
      }
      log.followed = pool;
      log.following = following;
    }
    return log;
  }

  public WorkerRank rank() {
    return rank;
  }

  /**
   * Adds {@code listener} and returns the id of the last event it will not receive: it gets every
   * event after that one, in order ({@code -1} when none was published yet, so it gets event 0 on).
   */
  public long subscribe(DynamoEventListener listener) {
    Objects.requireNonNull(listener, "listener");
    synchronized (lock) {
      List<DynamoEventListener> more = new ArrayList<>(listeners);
      more.add(listener);
      listeners = List.copyOf(more);
      return nextId - 1;
    }
  }

  /** Stops delivering to {@code listener} events numbered from now on. */
  public void unsubscribe(DynamoEventListener listener) {
    synchronized (lock) {
      List<DynamoEventListener> fewer = new ArrayList<>(listeners);
      fewer.remove(listener);
      listeners = List.copyOf(fewer);
    }
  }

  /** The newest event id, or {@code -1} when none was published yet. */
  public long newestEventId() {
    synchronized (lock) {
      return nextId - 1;
    }
  }

  /** Converts, numbers, keeps and publishes the events of one cache operation. */
  @Override
  public void onEvents(List<VllmEvent> events) {
    List<KvCacheEvent> converted = new ArrayList<>(events.size());
    for (VllmEvent event : events) {
      KvCacheEvent e = convert(event);
      if (e != null) {
        converted.add(e);
      }
    }
    if (converted.isEmpty()) {
      return;
    }
    synchronized (lock) {
      for (KvCacheEvent e : converted) {
        DynamoRouterEvent numbered = new DynamoRouterEvent(new RouterEvent(rank, e), nextId++);
        if (!state.apply(e)) {
          LOG.warn(
              "{}: event {} stores under a parent the worker does not hold",
              rank,
              numbered.eventId());
        }
        if (buffer.size() == bufferSize) {
          buffer.removeFirst();
        }
        buffer.addLast(numbered);
        for (DynamoEventListener listener : listeners) {
          delivery.enqueue(() -> listener.onEvent(numbered));
        }
      }
    }
    delivery.drain();
  }

  /**
   * Answers the router's recovery query for events {@code start..end} (inclusive; either may be
   * null: no start asks for a tree dump, no end means up to the newest), by Dynamo's rules (see
   * {@link WorkerKvQueryResult}). Ids compare unsigned.
   */
  public WorkerKvQueryResult query(Long start, Long end) {
    if (start != null && end != null && Long.compareUnsigned(end, start) < 0) {
      return new WorkerKvQueryResult.InvalidRange(start, end);
    }
    synchronized (lock) {
      if (start == null) {
        return dump(buffer.isEmpty() ? 0 : nextId - 1);
      }
      if (buffer.isEmpty()) {
        return dump(0);
      }
      long newest = buffer.getLast().eventId();
      long oldest = buffer.getFirst().eventId();
      if (Long.compareUnsigned(start, newest) > 0) {
        return new WorkerKvQueryResult.TooNew(start, end, newest);
      }
      if (Long.compareUnsigned(start, oldest) < 0) {
        return dump(newest);
      }
      long last = end == null || Long.compareUnsigned(end, newest) > 0 ? newest : end;
      // ids in the buffer are consecutive: the slice is positions start-oldest .. last-oldest
      List<DynamoRouterEvent> slice = new ArrayList<>((int) (last - start + 1));
      int skip = (int) (start - oldest);
      int take = (int) (last - start + 1);
      var it = buffer.iterator();
      for (int i = 0; i < skip; i++) {
        it.next();
      }
      for (int i = 0; i < take; i++) {
        slice.add(it.next());
      }
      return new WorkerKvQueryResult.Events(slice);
    }
  }

  /** The state now, as a tree dump; called under the lock. */
  private WorkerKvQueryResult.TreeDump dump(long lastEventId) {
    List<KvCacheEvent> events = state.dump();
    List<DynamoRouterEvent> numbered = new ArrayList<>(events.size());
    for (int i = 0; i < events.size(); i++) {
      numbered.add(new DynamoRouterEvent(new RouterEvent(rank, events.get(i)), i));
    }
    return new WorkerKvQueryResult.TreeDump(numbered, lastEventId);
  }

  /** Dynamo's form of {@code event}, or null when it is not published. */
  KvCacheEvent convert(VllmEvent event) {
    if (event instanceof VllmEvent.BlockStored stored) {
      return stored(stored);
    }
    if (event instanceof VllmEvent.BlockRemoved removed) {
      if (!onGpu(removed.medium())) {
        return null;
      }
      saltedChains.removed(removed.blockHashes());
      return new KvCacheEvent.Removed(removed.blockHashes());
    }
    saltedChains.cleared();
    return KvCacheEvent.cleared();
  }

  private KvCacheEvent stored(VllmEvent.BlockStored stored) {
    int bs = hasher.blockSize();
    if (!onGpu(stored.medium()) || stored.blockSize() != bs) {
      return null;
    }
    int[] tokens = stored.tokenIds();
    List<Long> hashes = stored.blockHashes();
    int complete = Math.min(hashes.size(), tokens.length / bs);
    if (complete == 0) {
      return null;
    }
    String namespace =
        saltedChains.namespaceOf(stored.parentBlockHash(), VllmCacheSalt.namedBy(stored));
    saltedChains.stored(hashes.subList(0, complete), namespace);
    BlockHasher local = hasherFor(stored.loraName(), namespace);
    List<StoredBlock> blocks = new ArrayList<>(complete);
    for (int i = 0; i < complete; i++) {
      blocks.add(new StoredBlock(hashes.get(i), local.localHash(tokens, i * bs)));
    }
    return new KvCacheEvent.Stored(stored.parentBlockHash(), blocks);
  }

  /** The hasher for blocks of adapter {@code lora} in {@code namespace} (either null: none). */
  private BlockHasher hasherFor(String lora, String namespace) {
    return lora == null && namespace == null
        ? hasher
        : BlockHasher.of(hasher.blockSize(), lora, namespace);
  }

  /** Publishers that predate the medium field only ever sent GPU blocks. */
  private static boolean onGpu(String medium) {
    return medium == null || VllmEvent.MEDIUM_GPU.equals(medium);
  }

  /** Stops following the pool given to {@link #attach}; queries keep working. */
  @Override
  public void close() {
    BlockPool pool;
    BlockPoolListener listener;
    synchronized (lock) {
      pool = followed;
      listener = following;
      followed = null;
    }
    if (pool != null) {
      pool.unsubscribe(listener);
    }
  }
}
