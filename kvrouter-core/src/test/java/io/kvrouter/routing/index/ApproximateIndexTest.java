package io.kvrouter.routing.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.routing.index.ApproximateIndex.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ApproximateIndexTest {
  private static final WorkerRank A = WorkerRank.of("a");
  private static final WorkerRank A1 = new WorkerRank("a", 1);
  private static final WorkerRank B = WorkerRank.of("b");
  private static final Duration TTL = Duration.ofSeconds(10);
  private static final long TTL_NANOS = TTL.toNanos();

  private final AtomicLong ticker = new AtomicLong(1_000);
  private final KvIndexer indexer = KvIndexer.create();
  private final Recording sink = new Recording(indexer);

  @AfterEach
  void close() {
    indexer.close();
  }

  /** Forwards to the indexer and keeps every event it was given, in order. */
  static final class Recording implements KvEventSink {
    final List<RouterEvent> events = new CopyOnWriteArrayList<>();
    private final KvEventSink next;

    Recording(KvEventSink next) {
      this.next = next;
    }

    @Override
    public void apply(WorkerRank worker, KvCacheEvent event) {
      events.add(new RouterEvent(worker, event));
      next.apply(worker, event);
    }

    List<RouterEvent> since(int from) {
      return List.copyOf(events.subList(from, events.size()));
    }
  }

  private ApproximateIndex approx(Settings settings) {
    return new ApproximateIndex(sink, settings, ticker::get);
  }

  private ApproximateIndex approx() {
    return approx(new Settings(TTL, 1 << 20, 0.8));
  }

  private static void route(ApproximateIndex approx, WorkerRank rank, long... locals) {
    approx.routed(rank, locals, BlockHasher.chain(locals));
  }

  private void flush() throws Exception {
    indexer.flush().toCompletableFuture().get();
  }

  private Map<WorkerRank, Integer> scores(long... locals) throws Exception {
    flush();
    return indexer.findMatches(locals).overlapBlocks();
  }

  /** The sequence hashes of {@code locals} at {@code positions}, in the order given. */
  private static List<Long> seq(long[] locals, int... positions) {
    long[] chain = BlockHasher.chain(locals);
    List<Long> hashes = new ArrayList<>();
    for (int p : positions) {
      hashes.add(chain[p]);
    }
    return hashes;
  }

  // ---- storing --------------------------------------------------------------------------------

  @Test
  void routed_scoresAsOverlapForThatRank() throws Exception {
    ApproximateIndex approx = approx();
    route(approx, A, 1, 2, 3);
    route(approx, B, 1, 2);

    assertThat(scores(1, 2, 3, 4)).containsOnly(entry(A, 3), entry(B, 2));
    assertThat(scores(1, 7)).containsOnly(entry(A, 1), entry(B, 1));
    assertThat(scores(2, 3)).isEmpty();
    assertThat(indexer.cachedBlocks()).containsOnly(entry(A, 3L), entry(B, 2L));
    assertThat(approx.trackedBlocks()).isEqualTo(5);
    assertThat(indexer.stats().rejected()).isZero();
  }

  @Test
  void routed_sendsOneRootStoredOfSequenceAndLocalHashes() {
    ApproximateIndex approx = approx();
    long[] locals = {11, 12, 13};
    long[] chain = BlockHasher.chain(locals);
    approx.routed(A, locals, chain);

    assertThat(sink.events)
        .containsExactly(
            new RouterEvent(
                A,
                KvCacheEvent.stored(
                    null,
                    new StoredBlock(chain[0], 11),
                    new StoredBlock(chain[1], 12),
                    new StoredBlock(chain[2], 13))));
  }

  @Test
  void routed_again_isAppliedAsANoOpByTheTree() throws Exception {
    ApproximateIndex approx = approx();
    route(approx, A, 1, 2, 3);
    route(approx, A, 1, 2, 3);
    route(approx, A, 1, 2);

    assertThat(sink.events).hasSize(3);
    flush();
    assertThat(indexer.stats()).isEqualTo(new KvIndexerStats(3, 0, 0, 0, 0));
    assertThat(indexer.cachedBlocks()).containsOnly(entry(A, 3L));
    assertThat(approx.trackedBlocks()).isEqualTo(3);
  }

  @Test
  void zeroBlocks_isANoOp() throws Exception {
    ApproximateIndex approx = approx();
    approx.routed(A, new long[0], new long[0]);

    assertThat(sink.events).isEmpty();
    assertThat(approx.trackedBlocks()).isZero();
    flush();
    assertThat(indexer.cachedBlocks()).isEmpty();
  }

  @Test
  void mismatchedLengths_areRejected_andChangeNothing() {
    ApproximateIndex approx = approx();
    assertThatThrownBy(() -> approx.routed(A, new long[] {1, 2}, new long[] {1}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("differ in length")
        .hasMessageContaining("2 != 1");
    assertThatThrownBy(() -> approx.routed(A, new long[0], new long[] {1}))
        .isInstanceOf(IllegalArgumentException.class);

    assertThat(sink.events).isEmpty();
    assertThat(approx.trackedBlocks()).isZero();
  }

  // ---- expiry ---------------------------------------------------------------------------------

  @Test
  void expire_removesExactlyAtTtl_leavesFirst() throws Exception {
    ApproximateIndex approx = approx();
    long[] locals = {1, 2, 3};
    route(approx, A, locals);

    ticker.addAndGet(TTL_NANOS - 1);
    assertThat(approx.expire()).isZero();
    assertThat(scores(1, 2, 3)).containsOnly(entry(A, 3));

    ticker.addAndGet(1);
    int before = sink.events.size();
    assertThat(approx.expire()).isEqualTo(3);
    assertThat(sink.since(before))
        .containsExactly(new RouterEvent(A, new KvCacheEvent.Removed(seq(locals, 2, 1, 0))));
    assertThat(scores(1, 2, 3)).isEmpty();
    assertThat(indexer.cachedBlocks()).containsOnly(entry(A, 0L));
    assertThat(approx.trackedBlocks()).isZero();
    assertThat(approx.expire()).isZero();
    assertThat(indexer.stats().rejected()).isZero();
  }

  @Test
  void expire_batchesOneRemovedPerRank() {
    ApproximateIndex approx = approx();
    route(approx, A, 1, 2);
    route(approx, B, 1);
    ticker.addAndGet(1);
    route(approx, A, 5);
    ticker.addAndGet(TTL_NANOS);

    int before = sink.events.size();
    assertThat(approx.expire()).isEqualTo(4);
    List<RouterEvent> removed = sink.since(before);
    assertThat(removed).extracting(RouterEvent::worker).containsExactlyInAnyOrder(A, B);
    Map<WorkerRank, List<Long>> byRank = new HashMap<>();
    removed.forEach(e -> byRank.put(e.worker(), ((KvCacheEvent.Removed) e.event()).blockHashes()));
    assertThat(byRank.get(A))
        .containsExactlyInAnyOrderElementsOf(
            List.of(seq(new long[] {1, 2}, 0).get(0), seq(new long[] {1, 2}, 1).get(0), 5L));
    assertThat(byRank.get(B)).containsExactly(1L);
  }

  @Test
  void rerouting_refreshesTtl_sharedPrefixOutlivesOlderTail() throws Exception {
    ApproximateIndex approx = approx();
    route(approx, A, 1, 2, 3);
    ticker.addAndGet(TTL_NANOS / 2);
    route(approx, A, 1, 2, 9);

    ticker.addAndGet(TTL_NANOS - TTL_NANOS / 2); // the first request's ttl is up
    int before = sink.events.size();
    assertThat(approx.expire()).isEqualTo(1);
    assertThat(sink.since(before))
        .containsExactly(
            new RouterEvent(A, new KvCacheEvent.Removed(seq(new long[] {1, 2, 3}, 2))));
    assertThat(scores(1, 2, 3)).containsOnly(entry(A, 2));
    assertThat(scores(1, 2, 9)).containsOnly(entry(A, 3));

    ticker.addAndGet(TTL_NANOS / 2 - 1);
    assertThat(approx.expire()).isZero();
    ticker.addAndGet(1);
    assertThat(approx.expire()).isEqualTo(3);
    assertThat(scores(1, 2, 9)).isEmpty();
    assertThat(indexer.stats().rejected()).isZero();
  }

  @Test
  void tickerGoingBack_isClamped_soAPrefixNeverExpiresBeforeItsTail() throws Exception {
    ApproximateIndex approx = approx();
    route(approx, A, 1, 2, 3);
    ticker.addAndGet(-TTL_NANOS / 2);
    route(approx, A, 1, 2); // at the clamped time: same expiry as before

    ticker.addAndGet(TTL_NANOS); // half a ttl after the first request
    assertThat(approx.expire()).isZero();
    assertThat(scores(1, 2, 3)).containsOnly(entry(A, 3));
    ticker.addAndGet(TTL_NANOS / 2);
    assertThat(approx.expire()).isEqualTo(3);
  }

  @Test
  void tickerWrappingAroundLongMaxValue_keepsOrder() throws Exception {
    ticker.set(Long.MAX_VALUE - 20);
    ApproximateIndex approx = approx(new Settings(Duration.ofNanos(10), 100, 0.5));
    route(approx, A, 1, 2); // expires at MAX_VALUE - 10
    ticker.addAndGet(15);
    route(approx, B, 1); // expires past MAX_VALUE, a negative long
    ticker.addAndGet(4);
    assertThat(approx.expire()).isEqualTo(2);
    assertThat(scores(1)).containsOnly(entry(B, 1));
    ticker.addAndGet(5); // wraps
    assertThat(approx.expire()).isZero();
    ticker.addAndGet(1);
    assertThat(approx.expire()).isEqualTo(1);
    assertThat(scores(1)).isEmpty();
  }

  // ---- size pruning ---------------------------------------------------------------------------

  @Test
  void pruning_goesToFloorOfTarget_oldestFirst_leavesBeforePrefixes() throws Exception {
    ApproximateIndex approx = approx(new Settings(TTL, 10, 0.55)); // keeps floor(5.5) = 5
    long[] first = {1, 2, 3, 4};
    route(approx, A, first);
    ticker.addAndGet(1);
    route(approx, B, first);
    ticker.addAndGet(1);
    assertThat(approx.trackedBlocks()).isEqualTo(8);

    int before = sink.events.size();
    route(approx, A, 5, 6, 7); // 11 > 10
    List<RouterEvent> events = sink.since(before);

    assertThat(approx.trackedBlocks()).isEqualTo(5);
    assertThat(events).hasSize(3);
    assertThat(events.get(0).event()).isInstanceOf(KvCacheEvent.Stored.class);
    assertThat(events.subList(1, 3))
        .containsExactly(
            new RouterEvent(A, new KvCacheEvent.Removed(seq(first, 3, 2, 1, 0))),
            new RouterEvent(B, new KvCacheEvent.Removed(seq(first, 3, 2))));
    assertThat(scores(first)).containsOnly(entry(B, 2));
    assertThat(scores(5, 6, 7)).containsOnly(entry(A, 3));
    assertThat(indexer.cachedBlocks()).containsOnly(entry(A, 3L), entry(B, 2L));
    assertThat(indexer.stats().rejected()).isZero();
  }

  @Test
  void pruning_withinOneDecision_dropsTheTail_andTheRankKeepsAPrefix() throws Exception {
    ApproximateIndex approx = approx(new Settings(TTL, 3, 1.0));
    long[] locals = {1, 2, 3, 4, 5};
    int before = sink.events.size();
    route(approx, A, locals);

    assertThat(sink.since(before).get(1))
        .isEqualTo(new RouterEvent(A, new KvCacheEvent.Removed(seq(locals, 4, 3))));
    assertThat(approx.trackedBlocks()).isEqualTo(3);
    assertThat(scores(locals)).containsOnly(entry(A, 3));
    assertThat(indexer.cachedBlocks()).containsOnly(entry(A, 3L));
  }

  @Test
  void pruning_onlyWhenAboveMax() {
    ApproximateIndex approx = approx(new Settings(TTL, 4, 0.5));
    route(approx, A, 1, 2, 3, 4);
    assertThat(approx.trackedBlocks()).isEqualTo(4);
    route(approx, A, 1, 2, 3, 4); // a refresh adds nothing
    assertThat(approx.trackedBlocks()).isEqualTo(4);
    route(approx, B, 1);
    assertThat(approx.trackedBlocks()).isEqualTo(2);
  }

  // ---- forgetting -----------------------------------------------------------------------------

  @Test
  void forgetWorker_forgetsEveryRank_withoutTellingTheSink() throws Exception {
    ApproximateIndex approx = approx();
    route(approx, A, 1, 2);
    route(approx, A1, 1, 2, 3);
    route(approx, B, 1);
    int before = sink.events.size();

    approx.forgetWorker("a");
    assertThat(sink.since(before)).isEmpty();
    assertThat(approx.trackedBlocks()).isEqualTo(1);
    indexer.removeWorker("a");

    ticker.addAndGet(TTL_NANOS);
    assertThat(approx.expire()).isEqualTo(1);
    assertThat(sink.since(before)).containsExactly(new RouterEvent(B, KvCacheEvent.removed(1)));

    route(approx, A, 7); // the worker may come back
    assertThat(scores(7)).containsOnly(entry(A, 1));
    assertThat(indexer.stats().rejected()).isZero();
  }

  // ---- settings -------------------------------------------------------------------------------

  @Test
  void settings_areValidated() {
    assertThatThrownBy(() -> new Settings(Duration.ZERO, 10, 0.8))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ttl must be positive");
    assertThatThrownBy(() -> new Settings(Duration.ofSeconds(-1), 10, 0.8))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ttl");
    assertThatThrownBy(() -> new Settings(Settings.MAX_TTL.plusNanos(1), 10, 0.8))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 36500 days");
    assertThatThrownBy(() -> new Settings(null, 10, 0.8))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("ttl");
    assertThatThrownBy(() -> new Settings(TTL, 0, 0.8))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxTreeSize must be > 0");
    assertThatThrownBy(() -> new Settings(TTL, -5, 0.8))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-5");
    for (double bad : new double[] {0, -0.1, 1.0000001, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> new Settings(TTL, 10, bad))
          .as("ratio %s", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("pruneTargetRatio must be in (0, 1]");
    }
    assertThat(new Settings(Settings.MAX_TTL, 1, 1.0).pruneTarget()).isEqualTo(1);
    assertThat(new Settings(TTL, 7, 0.8).pruneTarget()).isEqualTo(5);
    assertThat(new Settings(TTL, 1, 0.5).pruneTarget()).isZero();
    assertThat(Settings.DEFAULTS).isEqualTo(new Settings(Duration.ofSeconds(120), 1_048_576, 0.8));
    assertThat(Settings.DEFAULTS.pruneTarget()).isEqualTo(838_860);
  }

  // ---- the heap -------------------------------------------------------------------------------

  @Test
  void heap_staysBounded_underRepeatedRefresh() {
    ApproximateIndex approx = approx();
    long[] locals = new long[50];
    Arrays.setAll(locals, i -> i + 1);
    int largest = 0;
    for (int i = 0; i < 10_000; i++) {
      ticker.addAndGet(1);
      route(approx, A, locals);
      largest = Math.max(largest, approx.heapSize());
      assertHeapBounded(approx);
    }
    assertThat(approx.trackedBlocks()).isEqualTo(50);
    assertThat(largest).isGreaterThan(2 * 50); // refreshes do leave stale entries behind
    assertThat(largest).isLessThanOrEqualTo(2 * 50 + ApproximateIndex.REBUILD_SLACK);
  }

  @Test
  void heap_isNotPushed_whenRoutedAgainAtTheSameInstant() {
    ApproximateIndex approx = approx();
    for (int i = 0; i < 100; i++) {
      route(approx, A, 1, 2, 3);
    }
    assertThat(approx.heapSize()).isEqualTo(3);
  }

  @Test
  void heap_isRebuilt_afterForgettingManyBlocks() {
    ApproximateIndex approx = approx();
    long[] locals = new long[3000];
    Arrays.setAll(locals, i -> i + 1);
    route(approx, A, locals);
    route(approx, B, 1);
    approx.forgetWorker("a");
    assertThat(approx.heapSize()).isEqualTo(1);
  }

  // ---- threads --------------------------------------------------------------------------------

  @Test
  void concurrentCallers_keepTheIndexAndTheTrackerInStep() throws Exception {
    ApproximateIndex approx = approx(new Settings(Duration.ofNanos(400), 300, 0.7));
    int threads = 4;
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> running = new ArrayList<>();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    for (int t = 0; t < threads; t++) {
      long seed = 17L * t + 3;
      Thread thread =
          new Thread(
              () -> {
                SplittableRandom random = new SplittableRandom(seed);
                try {
                  start.await();
                  for (int i = 0; i < 3_000; i++) {
                    ticker.addAndGet(random.nextInt(3));
                    if (random.nextInt(10) == 0) {
                      approx.expire();
                    } else {
                      WorkerRank rank = new WorkerRank("w" + random.nextInt(3), random.nextInt(2));
                      long[] locals = new long[1 + random.nextInt(8)];
                      Arrays.setAll(locals, k -> 1 + random.nextInt(3));
                      route(approx, rank, locals);
                    }
                  }
                } catch (Throwable e) {
                  failures.add(e);
                }
              });
      thread.start();
      running.add(thread);
    }
    start.countDown();
    for (Thread thread : running) {
      thread.join();
    }
    assertThat(failures).isEmpty();
    flush();
    assertThat(indexer.stats().rejected()).isZero();
    long held = indexer.cachedBlocks().values().stream().mapToLong(Long::longValue).sum();
    assertThat(held).isEqualTo(approx.trackedBlocks());
    assertThat(approx.trackedBlocks()).isLessThanOrEqualTo(300);
  }

  // ---- property: against a naive model ----------------------------------------------------------

  /** One step of a random run. */
  sealed interface Op permits Advance, Route, Expire, Forget {}

  record Advance(long nanos) implements Op {}

  record Route(String worker, int dpRank, List<Long> locals) implements Op {}

  record Expire() implements Op {}

  record Forget(String worker) implements Op {}

  record Run(long startNanos, long ttlNanos, int maxTreeSize, double ratio, List<Op> ops) {}

  private static Run randomRun(SplittableRandom random, int genSize) {
    long ttl = 5 + random.nextInt(40);
    int max = random.nextInt(4) == 0 ? 1 << 20 : 1 + random.nextInt(30);
    double[] ratios = {1.0, 0.8, 0.5, 0.01 + 0.99 * random.nextDouble()};
    double ratio = ratios[random.nextInt(ratios.length)];
    List<Op> ops = new ArrayList<>();
    int steps = 10 + random.nextInt(150);
    for (int i = 0; i < steps; i++) {
      int roll = random.nextInt(100);
      if (roll < 50) {
        List<Long> locals = new ArrayList<>();
        int length = random.nextInt(8); // sometimes none
        for (int k = 0; k < length; k++) {
          locals.add(1L + random.nextInt(3));
        }
        ops.add(new Route("w" + random.nextInt(3), random.nextInt(2), locals));
      } else if (roll < 75) {
        long step = random.nextInt(3) == 0 ? 0 : random.nextLong(1, ttl + 1);
        ops.add(new Advance(step));
      } else if (roll < 95) {
        ops.add(new Expire());
      } else {
        ops.add(new Forget("w" + random.nextInt(3)));
      }
    }
    // half the runs start just before the ticker wraps around
    long start = random.nextBoolean() ? random.nextLong() : Long.MAX_VALUE - random.nextInt(500);
    return new Run(start, ttl, max, ratio, ops);
  }

  @Test
  void property_matchesNaiveModel() {
    Tries.forAll(200, ApproximateIndexTest::randomRun, ApproximateIndexTest::checkRun);
  }

  /** What the model knows of a tracked block. */
  private record Tracked(long expiry, int position) {}

  /** Removal order: earliest expiry first, then the larger position. */
  private static int removalOrder(Tracked x, Tracked y) {
    long d = x.expiry() - y.expiry();
    return d != 0 ? (d < 0 ? -1 : 1) : Integer.compare(y.position(), x.position());
  }

  private static void checkRun(Run run) throws Exception {
    AtomicLong clock = new AtomicLong(run.startNanos());
    try (KvIndexer kv = KvIndexer.create()) {
      Recording recording = new Recording(kv);
      ApproximateIndex approx =
          new ApproximateIndex(
              recording,
              new Settings(Duration.ofNanos(run.ttlNanos()), run.maxTreeSize(), run.ratio()),
              clock::get);
      int target = (int) Math.floor(run.maxTreeSize() * run.ratio());
      Map<WorkerRank, Map<Long, Tracked>> model = new HashMap<>();
      Map<Long, Long> parentOf = new HashMap<>(); // sequence hash -> parent's (null at the start)
      Set<List<Long>> prompts = new LinkedHashSet<>();

      for (Op op : run.ops()) {
        int before = recording.events.size();
        long now = clock.get();
        if (op instanceof Advance advance) {
          clock.addAndGet(advance.nanos());
        } else if (op instanceof Route route) {
          WorkerRank rank = new WorkerRank(route.worker(), route.dpRank());
          long[] locals = route.locals().stream().mapToLong(Long::longValue).toArray();
          long[] chain = BlockHasher.chain(locals);
          approx.routed(rank, locals, chain);
          List<RouterEvent> events = recording.since(before);
          if (locals.length == 0) {
            assertThat(events).isEmpty();
          } else {
            prompts.add(route.locals());
            Map<Long, Tracked> blocks = model.computeIfAbsent(rank, k -> new HashMap<>());
            for (int i = 0; i < chain.length; i++) {
              blocks.put(chain[i], new Tracked(now + run.ttlNanos(), i));
              parentOf.put(chain[i], i == 0 ? null : chain[i - 1]);
            }
            List<StoredBlock> stored = new ArrayList<>();
            for (int i = 0; i < chain.length; i++) {
              stored.add(new StoredBlock(chain[i], locals[i]));
            }
            assertThat(events.get(0))
                .isEqualTo(new RouterEvent(rank, new KvCacheEvent.Stored(null, stored)));
            int size = size(model);
            Map<WorkerRank, List<Long>> removed = removals(events.subList(1, events.size()));
            if (size <= run.maxTreeSize()) {
              assertThat(removed).isEmpty();
            } else {
              assertThat(removed.values().stream().mapToInt(List::size).sum())
                  .isEqualTo(size - target);
              checkPrunedFirst(model, removed);
              removeAll(model, removed);
            }
          }
        } else if (op instanceof Expire) {
          int count = approx.expire();
          Map<WorkerRank, List<Long>> removed = removals(recording.since(before));
          Map<WorkerRank, Set<Long>> expected = new HashMap<>();
          model.forEach(
              (rank, blocks) ->
                  blocks.forEach(
                      (hash, t) -> {
                        if (t.expiry() - now <= 0) {
                          expected.computeIfAbsent(rank, k -> new HashSet<>()).add(hash);
                        }
                      }));
          Map<WorkerRank, Set<Long>> actual = new HashMap<>();
          removed.forEach((rank, hashes) -> actual.put(rank, new HashSet<>(hashes)));
          assertThat(actual).isEqualTo(expected);
          assertThat(count).isEqualTo(expected.values().stream().mapToInt(Set::size).sum());
          removeAll(model, removed);
        } else if (op instanceof Forget forget) {
          approx.forgetWorker(forget.worker());
          kv.removeWorker(forget.worker());
          assertThat(recording.since(before)).isEmpty();
          model.keySet().removeIf(rank -> rank.workerId().equals(forget.worker()));
        }
        List<RouterEvent> removedEvents = new ArrayList<>(recording.since(before));
        removedEvents.removeIf(e -> e.event() instanceof KvCacheEvent.Stored);
        for (List<Long> hashes : removals(removedEvents).values()) {
          assertLeavesFirst(hashes, parentOf);
        }
        assertPrefixClosed(model, parentOf);
        assertThat(approx.trackedBlocks()).isEqualTo(size(model));
        assertHeapBounded(approx);
      }

      kv.flush().toCompletableFuture().get();
      assertThat(kv.stats().rejected()).isZero();
      Map<WorkerRank, Long> cached = new HashMap<>(kv.cachedBlocks());
      cached.values().removeIf(n -> n == 0);
      Map<WorkerRank, Long> expected = new HashMap<>();
      model.forEach(
          (rank, blocks) -> {
            if (!blocks.isEmpty()) {
              expected.put(rank, (long) blocks.size());
            }
          });
      assertThat(cached).isEqualTo(expected);
      for (List<Long> prompt : prompts) {
        long[] locals = prompt.stream().mapToLong(Long::longValue).toArray();
        long[] chain = BlockHasher.chain(locals);
        Map<WorkerRank, Integer> want = new HashMap<>();
        model.forEach(
            (rank, blocks) -> {
              int depth = 0;
              while (depth < chain.length && blocks.containsKey(chain[depth])) {
                depth++;
              }
              if (depth > 0) {
                want.put(rank, depth);
              }
            });
        assertThat(kv.findMatches(locals).overlapBlocks()).as("prompt %s", prompt).isEqualTo(want);
      }
    }
  }

  /** Every live entry is in the heap, and stale ones are bounded. */
  private static void assertHeapBounded(ApproximateIndex approx) {
    int live = approx.trackedBlocks();
    assertThat(approx.heapSize()).isBetween(live, 2 * live + ApproximateIndex.REBUILD_SLACK);
  }

  private static int size(Map<WorkerRank, Map<Long, Tracked>> model) {
    return model.values().stream().mapToInt(Map::size).sum();
  }

  /** The hashes of the Removed events, by rank; at most one event per rank. */
  private static Map<WorkerRank, List<Long>> removals(List<RouterEvent> events) {
    Map<WorkerRank, List<Long>> removed = new HashMap<>();
    for (RouterEvent e : events) {
      assertThat(e.event()).isInstanceOf(KvCacheEvent.Removed.class);
      List<Long> previous =
          removed.put(e.worker(), ((KvCacheEvent.Removed) e.event()).blockHashes());
      assertThat(previous).as("a second Removed for %s", e.worker()).isNull();
    }
    return removed;
  }

  /** Every block pruned comes no later, in removal order, than every block kept. */
  private static void checkPrunedFirst(
      Map<WorkerRank, Map<Long, Tracked>> model, Map<WorkerRank, List<Long>> removed) {
    Tracked latestPruned = null;
    Set<String> prunedKeys = new HashSet<>();
    for (Map.Entry<WorkerRank, List<Long>> e : removed.entrySet()) {
      for (long hash : e.getValue()) {
        Tracked t = model.get(e.getKey()).get(hash);
        assertThat(t).as("pruned %s of %s is tracked", hash, e.getKey()).isNotNull();
        prunedKeys.add(e.getKey() + "/" + hash);
        if (latestPruned == null || removalOrder(t, latestPruned) > 0) {
          latestPruned = t;
        }
      }
    }
    for (Map.Entry<WorkerRank, Map<Long, Tracked>> e : model.entrySet()) {
      for (Map.Entry<Long, Tracked> b : e.getValue().entrySet()) {
        if (!prunedKeys.contains(e.getKey() + "/" + b.getKey())) {
          assertThat(removalOrder(latestPruned, b.getValue()))
              .as("kept %s of %s before pruned %s", b.getValue(), e.getKey(), latestPruned)
              .isLessThanOrEqualTo(0);
        }
      }
    }
  }

  private static void removeAll(
      Map<WorkerRank, Map<Long, Tracked>> model, Map<WorkerRank, List<Long>> removed) {
    removed.forEach(
        (rank, hashes) -> {
          Map<Long, Tracked> blocks = model.get(rank);
          for (long hash : hashes) {
            assertThat(blocks.remove(hash))
                .as("removed %s of %s is tracked", hash, rank)
                .isNotNull();
          }
        });
  }

  /** Within one Removed event, a block comes before its parent. */
  private static void assertLeavesFirst(List<Long> hashes, Map<Long, Long> parentOf) {
    for (int i = 0; i < hashes.size(); i++) {
      Long parent = parentOf.get(hashes.get(i));
      if (parent != null) {
        assertThat(hashes.subList(0, i))
            .as("parent of %s removed before it", hashes.get(i))
            .doesNotContain(parent);
      }
    }
  }

  /** Each rank tracks whole chains: a tracked block's parent is tracked too. */
  private static void assertPrefixClosed(
      Map<WorkerRank, Map<Long, Tracked>> model, Map<Long, Long> parentOf) {
    model.forEach(
        (rank, blocks) ->
            blocks.forEach(
                (hash, t) -> {
                  Long parent = parentOf.get(hash);
                  if (parent != null) {
                    assertThat(blocks)
                        .as("parent of %s held by %s", hash, rank)
                        .containsKey(parent);
                    assertThat(removalOrder(t, blocks.get(parent))).isLessThan(0);
                  }
                }));
  }
}
