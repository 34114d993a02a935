package io.kvrouter.routing.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.routing.index.ApproximateIndex.Settings;
import io.kvrouter.routing.index.ApproximateIndexTest.Recording;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;

/**
 * {@link ApproximateIndex} against a naive model under random runs of routes, clock advances,
 * expiries and worker removals, as a jqwik property: a failing run shrinks to the fewest and
 * simplest ops, and is retried first on the next run; pin its reported seed with {@code
 * @Property(seed = "…")} while debugging (more in {@link RadixTreePropertiesTest}).
 */
class ApproximateIndexPropertiesTest {

  /** One step of a random run. */
  sealed interface Op permits Advance, Route, Expire, Forget {}

  record Advance(long nanos) implements Op {}

  record Route(String worker, int dpRank, List<Long> locals) implements Op {}

  record Expire() implements Op {}

  record Forget(String worker) implements Op {}

  record Run(long startNanos, long ttlNanos, int maxTreeSize, double ratio, List<Op> ops) {}

  /**
   * Runs of 1 to 159 ops: half routes (0 to 7 blocks over a 3-value alphabet, to 3 workers of 2
   * ranks), a quarter clock advances (a third of them none, else up to the TTL), a fifth expiries,
   * the rest worker removals; TTL 5 to 44 ns, a tree of 1 to 30 blocks or (a quarter of runs)
   * unbounded, four kinds of pruning ratio, and half the runs start just before the ticker wraps.
   */
  @Provide
  Arbitrary<Run> runs() {
    Arbitrary<Integer> maxTreeSizes =
        Arbitraries.frequencyOf(
            Tuple.of(3, Arbitraries.integers().between(1, 30)), Tuple.of(1, Arbitraries.just(1 << 20)));
    Arbitrary<Double> ratios =
        Arbitraries.oneOf(
            Arbitraries.just(1.0),
            Arbitraries.just(0.8),
            Arbitraries.just(0.5),
            Arbitraries.doubles().between(0.01, 1.0));
    Arbitrary<Long> starts =
        Arbitraries.oneOf(
            Arbitraries.longs(), Arbitraries.longs().between(0, 499).map(d -> Long.MAX_VALUE - d));
    return Arbitraries.longs()
        .between(5, 44)
        .flatMap(
            ttl ->
                Combinators.combine(
                        starts,
                        Arbitraries.just(ttl),
                        maxTreeSizes,
                        ratios,
                        ops(ttl).list().ofMinSize(1).ofMaxSize(159).withSizeDistribution(RandomDistribution.uniform()))
                    .as(Run::new));
  }

  private static Arbitrary<Op> ops(long ttl) {
    Arbitrary<String> workers = Arbitraries.of("w0", "w1", "w2");
    Arbitrary<Op> route =
        Combinators.combine(
                workers, Arbitraries.integers().between(0, 1), Arbitraries.longs().between(1, 3).list().ofMaxSize(7))
            .as(Route::new);
    Arbitrary<Op> advance =
        Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(0L)), Tuple.of(2, Arbitraries.longs().between(1, ttl)))
            .map(Advance::new);
    Arbitrary<Op> forget = workers.map(Forget::new);
    return Arbitraries.frequencyOf(
        Tuple.of(50, route), Tuple.of(25, advance), Tuple.of(20, Arbitraries.just(new Expire())), Tuple.of(5, forget));
  }

  /** What the model knows of a tracked block. */
  private record Tracked(long expiry, int position) {}

  /** Removal order: earliest expiry first, then the larger position. */
  private static int removalOrder(Tracked x, Tracked y) {
    long d = x.expiry() - y.expiry();
    return d != 0 ? (d < 0 ? -1 : 1) : Integer.compare(y.position(), x.position());
  }

  @Property(tries = 200)
  void randomRuns_matchTheNaiveModel(@ForAll("runs") Run run) throws Exception {
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
        ApproximateIndexTest.assertHeapBounded(approx);
      }

      kv.flush().toCompletableFuture().get();
      assertThat(kv.stats().rejected()).isZero();
      Map<WorkerRank, Long> cached = new HashMap<>(kv.cachedBlocks());
      cached.values().removeIf(n -> n == 0);
      Map<WorkerRank, Long> expected = new HashMap<>();
      model.forEach((rank, blocks) -> {
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
