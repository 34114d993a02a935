package io.kvrouter.routing.index;

import static io.kvrouter.protocol.KvCacheEvent.cleared;
import static io.kvrouter.protocol.KvCacheEvent.removed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import io.kvrouter.metrics.MetricNames;
import io.kvrouter.metrics.Metrics;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class KvIndexerTest {
  private static final WorkerRank A = WorkerRank.of("a");
  private static final WorkerRank A1 = new WorkerRank("a", 1);
  private static final WorkerRank B = WorkerRank.of("b");

  private final List<Thread> threads = new CopyOnWriteArrayList<>();
  private final ThreadFactory recording =
      task -> {
        Thread t = ShardedKvIndexer.daemonThreads().newThread(task);
        threads.add(t);
        return t;
      };
  private ShardedKvIndexer indexer;

  @AfterEach
  void close() {
    if (indexer != null) {
      indexer.close();
    }
  }

  private ShardedKvIndexer indexer(int shards) {
    indexer = new ShardedKvIndexer(shards, null, recording);
    return indexer;
  }

  private static KvCacheEvent stored(Integer parent, int... blocks) {
    StoredBlock[] b = new StoredBlock[blocks.length];
    for (int i = 0; i < blocks.length; i++) {
      b[i] = new StoredBlock(1000 + blocks[i], blocks[i]);
    }
    return KvCacheEvent.stored(parent == null ? null : 1000L + parent, b);
  }

  private static void await(java.util.concurrent.CompletionStage<?> stage) {
    stage.toCompletableFuture().join();
  }

  @Test
  void applyThenFlush_readsSeeTheEvents() {
    KvIndexer kv = indexer(2);
    kv.apply(A, stored(null, 1, 2, 3));
    kv.apply(B, stored(null, 1, 2));
    kv.apply(A1, stored(null, 1));
    await(kv.flush());

    assertThat(kv.findMatches(new long[] {1, 2, 3}).overlapBlocks())
        .containsOnly(entry(A, 3), entry(B, 2), entry(A1, 1));
    assertThat(kv.cachedBlocks()).containsOnly(entry(A, 3L), entry(B, 2L), entry(A1, 1L));
    assertThat(kv.stats()).isEqualTo(new KvIndexerStats(3, 0, 0, 0, 0));
  }

  @Test
  void removeWorker_dropsEveryRankAfterItsEvents_fromReadsAndDumps_andTheIdMayComeBack() {
    KvIndexer kv = indexer(2);
    kv.apply(A, stored(null, 1, 2, 3));
    kv.apply(A1, stored(null, 1, 2));
    kv.apply(B, stored(null, 1));
    kv.removeWorker("a");
    await(kv.flush());

    assertThat(kv.findMatches(new long[] {1, 2, 3}).overlapBlocks()).containsOnly(entry(B, 1));
    assertThat(kv.cachedBlocks()).containsOnly(entry(B, 1L));
    assertThat(kv.dump().toCompletableFuture().join())
        .extracting(RouterEvent::worker)
        .containsOnly(B);

    kv.apply(A, stored(null, 1));
    await(kv.flush());
    assertThat(kv.cachedBlocks()).containsOnly(entry(A, 1L), entry(B, 1L));
  }

  @Test
  void stats_countRejectionsByReason() {
    KvIndexer kv = indexer(3);
    kv.apply(A, stored(null, 1, 2));
    kv.apply(A, stored(7, 8)); // parent not held
    kv.apply(B, stored(2, 3)); // parent held only by another worker
    kv.apply(A, stored(2, 1)); // block 1 below its own descendant
    kv.apply(A, removed(1002, 4242)); // one unknown
    kv.apply(A, cleared());
    await(kv.flush());

    KvIndexerStats stats = kv.stats();
    assertThat(stats).isEqualTo(new KvIndexerStats(2, 2, 1, 1, 0));
    assertThat(stats.rejected()).isEqualTo(4);
  }

  @Test
  void meters_areRegisteredWithDynamosNamesAndLabels() {
    Metrics metrics = new Metrics();
    indexer = new ShardedKvIndexer(2, metrics.registry(), recording);
    indexer.apply(A, stored(null, 1, 2));
    indexer.apply(A, stored(7, 8));
    indexer.apply(A, KvCacheEvent.stored(1001L, new StoredBlock(1001, 5)));
    indexer.apply(A, removed(4242));
    indexer.apply(A, cleared());
    await(indexer.flush());

    assertThat(metrics.scrape())
        .contains(
            "dynamo_kvrouter_kv_cache_events_applied_total{event_type=\"stored\",status=\"ok\"} 1.0")
        .contains(
            "dynamo_kvrouter_kv_cache_events_applied_total{event_type=\"stored\",status=\"parent_block_not_found\"} 1.0")
        .contains(
            "dynamo_kvrouter_kv_cache_events_applied_total{event_type=\"stored\",status=\"invalid_block\"} 1.0")
        .contains(
            "dynamo_kvrouter_kv_cache_events_applied_total{event_type=\"removed\",status=\"block_not_found\"} 1.0")
        .contains(
            "dynamo_kvrouter_kv_cache_events_applied_total{event_type=\"removed\",status=\"ok\"} 0.0")
        .contains(
            "dynamo_kvrouter_kv_cache_events_applied_total{event_type=\"cleared\",status=\"ok\"} 1.0")
        .contains("kvrouter_indexer_pending_events 0.0");
  }

  @Test
  void meters_simpleRegistry_countsMatchStats() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    indexer = new ShardedKvIndexer(1, registry, recording);
    indexer.apply(A, stored(null, 1));
    indexer.apply(A, removed(1001));
    await(indexer.flush());

    double ok =
        registry
            .find(MetricNames.KV_CACHE_EVENTS_APPLIED)
            .tag(MetricNames.TAG_STATUS, "ok")
            .functionCounters()
            .stream()
            .mapToDouble(c -> c.count())
            .sum();
    assertThat(ok).isEqualTo(indexer.stats().applied()).isEqualTo(2.0);
  }

  @Test
  void removeWorker_isOrderedWithTheWorkersEvents() {
    KvIndexer kv = indexer(4);
    kv.apply(A, stored(null, 1, 2));
    kv.apply(A1, stored(null, 1));
    kv.apply(B, stored(null, 1));
    kv.removeWorker("a");
    kv.apply(A, stored(null, 1));
    await(kv.flush());

    assertThat(kv.findMatches(new long[] {1, 2}).overlapBlocks())
        .containsOnly(entry(A, 1), entry(B, 1));
    assertThat(kv.cachedBlocks()).containsOnly(entry(A, 1L), entry(B, 1L));
  }

  @Test
  void oneWorkersEvents_applyInOrder_whateverTheShards() {
    KvIndexer kv = indexer(4);
    for (int i = 0; i < 2_000; i++) {
      kv.apply(A, stored(null, 1, 2));
      kv.apply(A, removed(1002));
    }
    kv.apply(A, stored(1, 3));
    await(kv.flush());

    assertThat(kv.stats()).isEqualTo(new KvIndexerStats(4_001, 0, 0, 0, 0));
    assertThat(kv.findMatches(new long[] {1, 3}).overlapBlocks()).containsExactly(entry(A, 2));
  }

  @Test
  void shardIndex_isStickyAndSpreadsWorkers() {
    int[] perShard = new int[4];
    for (int i = 0; i < 400; i++) {
      int shard = ShardedKvIndexer.shardIndex("worker-" + i, 4);
      assertThat(ShardedKvIndexer.shardIndex("worker-" + i, 4)).isEqualTo(shard);
      perShard[shard]++;
    }
    assertThat(java.util.Arrays.stream(perShard).min().getAsInt()).isGreaterThan(50);
  }

  @Test
  void dump_rebuildsAnotherIndexer() {
    KvIndexer kv = indexer(3);
    for (int w = 0; w < 10; w++) {
      WorkerRank rank = new WorkerRank("w" + w, w % 2);
      kv.apply(rank, stored(null, 1, 2, 10 + w));
      kv.apply(rank, stored(2, 30, 31));
    }
    kv.apply(new WorkerRank("w3", 1), removed(1002));
    await(kv.flush());

    List<RouterEvent> dump = kv.dump().toCompletableFuture().join();
    try (KvIndexer copy = KvIndexer.create(2, null)) {
      dump.forEach(e -> copy.apply(e.worker(), e.event()));
      await(copy.flush());

      assertThat(copy.stats().rejected()).isZero();
      assertThat(copy.cachedBlocks()).isEqualTo(kv.cachedBlocks());
      for (long[] q :
          List.of(new long[] {1, 2, 10}, new long[] {1, 2, 13, 5}, new long[] {1, 2, 30, 31})) {
        assertThat(copy.findMatches(q)).isEqualTo(kv.findMatches(q));
      }
    }
  }

  @Test
  void close_stopsEveryWriterThread_readsStillWork() {
    KvIndexer kv = indexer(3);
    kv.apply(A, stored(null, 1));
    await(kv.flush());
    assertThat(threads).hasSize(3).allMatch(Thread::isAlive);

    kv.close();

    assertThat(threads).noneMatch(Thread::isAlive);
    assertThat(kv.findMatches(new long[] {1}).overlapBlocks()).containsExactly(entry(A, 1));
    kv.close(); // idempotent
  }

  @Test
  void afterClose_writesAreIgnored_flushCompletes_dumpFails() {
    KvIndexer kv = indexer(2);
    kv.close();

    kv.apply(A, stored(null, 1));
    kv.removeWorker("a");
    await(kv.flush());

    assertThat(kv.findMatches(new long[] {1}).overlapBlocks()).isEmpty();
    assertThat(kv.stats()).isEqualTo(new KvIndexerStats(0, 0, 0, 0, 0));
    assertThatThrownBy(() -> kv.dump().toCompletableFuture().join())
        .isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(IllegalStateException.class);
  }

  @Test
  void create_rejectsBadArguments() {
    assertThatThrownBy(() -> KvIndexer.create(0, null))
        .isInstanceOf(IllegalArgumentException.class);
    KvIndexer kv = indexer(1);
    assertThatThrownBy(() -> kv.apply(null, cleared())).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> kv.apply(A, null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> kv.findMatches(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void defaultIndexer_usesDaemonThreads() {
    try (KvIndexer kv = KvIndexer.create()) {
      kv.apply(A, stored(null, 1));
      await(kv.flush());
      assertThat(kv.findMatches(new long[] {1}).overlap(A)).isEqualTo(1);
      assertThat(Thread.getAllStackTraces().keySet())
          .filteredOn(t -> t.getName().startsWith("kvrouter-indexer-"))
          .isNotEmpty()
          .allMatch(Thread::isDaemon);
    }
  }
}
