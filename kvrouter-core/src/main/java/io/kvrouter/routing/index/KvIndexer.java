package io.kvrouter.routing.index;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.OverlapScores;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * The index of which worker rank caches which KV blocks, kept from the workers' KV cache events and
 * read to score prompts (Dynamo's {@code KvIndexer} over a {@code ConcurrentRadixTree}).
 *
 * <p>Writes ({@link #apply}, {@link #removeWorker}) are queued and applied by one writer thread per
 * shard; a worker id always goes to the same shard, so each worker's events apply in the order they
 * were given. Reads ({@link #findMatches}, {@link #cachedBlocks}) run on the caller's thread, never
 * block, and see writes as they land: a read that races writes scores each worker rank between the
 * lowest and the highest score it had while the read ran. {@link #flush} waits for the writes given
 * before it.
 */
public interface KvIndexer extends KvEventSink, AutoCloseable {

  /** Writer threads when not configured. */
  int DEFAULT_SHARDS = 2;

  /** An indexer with {@link #DEFAULT_SHARDS} writer threads and no meters. */
  static KvIndexer create() {
    return create(DEFAULT_SHARDS, null);
  }

  /**
   * An indexer with {@code shards} writer threads, registering its meters (see {@link
   * io.kvrouter.metrics.MetricNames}) with {@code meterRegistry} unless that is null.
   */
  static KvIndexer create(int shards, MeterRegistry meterRegistry) {
    return new ShardedKvIndexer(shards, meterRegistry, ShardedKvIndexer.daemonThreads());
  }

  /**
   * An indexer that applies every write on the caller's thread before returning, for one thread
   * that must see its own writes at once (the simulator); {@link #flush} is then a no-op.
   */
  static KvIndexer inline() {
    return new InlineKvIndexer();
  }

  /** Queues {@code event} of {@code worker}; returns at once. Ignored once closed. */
  @Override
  void apply(WorkerRank worker, KvCacheEvent event);

  /** Queues the removal of every rank of {@code workerId}, after its events given before. */
  void removeWorker(String workerId);

  /**
   * Per worker rank, the number of consecutive blocks of the prompt it caches from block 0, and how
   * many blocks it caches in all.
   *
   * @param localBlockHashes the prompt's local block hashes ({@code tokens_hash}), in order
   */
  OverlapScores findMatches(long[] localBlockHashes);

  /** Blocks cached by each known worker rank. */
  Map<WorkerRank, Long> cachedBlocks();

  /**
   * Completes once every write given before this call has been applied, or once the writer threads
   * have stopped after {@link #close}.
   */
  CompletionStage<Void> flush();

  /**
   * Events that rebuild the current state of every known worker rank when applied to any indexer:
   * per rank a {@code Cleared}, then one single-block {@code Stored} per cached block,
   * breadth-first from the sequence start, each naming its parent by block hash (and, for blocks
   * kept after their parent was removed, that parent stored and removed again). Each shard's part
   * is taken on its writer thread after the writes given before this call. Fails once closed.
   */
  CompletionStage<List<RouterEvent>> dump();

  KvIndexerStats stats();

  /** Stops the writer threads; writes not yet applied are dropped. Reads keep working. */
  @Override
  void close();
}
