package io.kvrouter.routing.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.OverlapScores;
import io.kvrouter.protocol.WorkerRank;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Readers on several threads while writers apply events, each writer owning one worker id, all
 * sharing the tree's nodes. What a read guarantees: for every rank, its score lies between the
 * lowest and the highest score the rank had while the read ran. The test knows each worker's score
 * after each of its events (from {@link NaiveIndex}) and how far each writer had got when a read
 * started and ended, so it checks exactly that bound for every read.
 */
class ConcurrentReadsTest {
  private static final int EVENTS_PER_WORKER = 1_500;
  private static final int MAX_DEPTH = 8;
  private static final int READERS = 3;

  /** An engine-like stream for one worker id (both its ranks), from a seeded random. */
  private static List<Scenario.Action> stream(int workerId, long seed, NaiveIndex model) {
    Random random = new Random(seed);
    List<Scenario.Action> actions = new ArrayList<>();
    Scenario scenario = new Scenario(model);
    while (actions.size() < EVENTS_PER_WORKER) {
      int roll = random.nextInt(100);
      Scenario.Kind kind =
          roll < 58
              ? Scenario.Kind.STORE
              : roll < 96
                  ? Scenario.Kind.REMOVE
                  : roll < 99 ? Scenario.Kind.CLEAR : Scenario.Kind.REMOVE_WORKER;
      List<Integer> tokens = new ArrayList<>();
      int length = 1 + random.nextInt(MAX_DEPTH);
      for (int i = 0; i < length; i++) {
        tokens.add(random.nextInt(Scenario.ALPHABET));
      }
      Scenario.Step step =
          new Scenario.Step(
              kind,
              workerId * Scenario.DP_RANKS + random.nextInt(Scenario.DP_RANKS),
              tokens,
              random.nextInt(MAX_DEPTH + 1),
              random.nextInt(1000),
              random.nextInt(1000),
              random.nextInt(1000));
      Scenario.Action action = scenario.next(step);
      if (action.removedWorker() != null) {
        model.removeWorker(action.removedWorker());
      } else {
        model.apply(action.rank(), action.event());
      }
      actions.add(action);
    }
    return actions;
  }

  private static List<long[]> queries(long seed, int count) {
    Random random = new Random(seed);
    List<long[]> queries = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      List<Integer> tokens = new ArrayList<>();
      for (int d = 0; d < MAX_DEPTH; d++) {
        tokens.add(random.nextInt(Scenario.ALPHABET));
      }
      queries.add(Scenario.query(tokens));
    }
    return queries;
  }

  private static final class Workload {
    final List<List<Scenario.Action>> streams = new ArrayList<>();
    final List<long[]> queries;

    /** expected[worker id][events applied][query][dp rank] */
    final int[][][][] expected;

    final NaiveIndex finalModel = new NaiveIndex();

    Workload(long seed) {
      queries = queries(seed, 16);
      expected =
          new int[Scenario.WORKER_IDS][EVENTS_PER_WORKER + 1][queries.size()][Scenario.DP_RANKS];
      for (int id = 0; id < Scenario.WORKER_IDS; id++) {
        NaiveIndex model = new NaiveIndex();
        List<Scenario.Action> actions = stream(id, seed * 31 + id, model);
        streams.add(actions);
        NaiveIndex replay = new NaiveIndex();
        record(replay, id, 0);
        for (int i = 0; i < actions.size(); i++) {
          Scenario.Action a = actions.get(i);
          if (a.removedWorker() != null) {
            replay.removeWorker(a.removedWorker());
            finalModel.removeWorker(a.removedWorker());
          } else {
            replay.apply(a.rank(), a.event());
            finalModel.apply(a.rank(), a.event());
          }
          record(replay, id, i + 1);
        }
      }
    }

    private void record(NaiveIndex model, int id, int applied) {
      for (int q = 0; q < queries.size(); q++) {
        Map<WorkerRank, Integer> scores = model.scores(queries.get(q));
        for (int r = 0; r < Scenario.DP_RANKS; r++) {
          expected[id][applied][q][r] =
              scores.getOrDefault(Scenario.rank(id * Scenario.DP_RANKS + r), 0);
        }
      }
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3})
  void readsRacingWriters_scoreEachRankWithinItsRangeDuringTheRead(long seed) throws Exception {
    Workload work = new Workload(seed);
    RadixTree tree = new RadixTree();
    AtomicIntegerArray progress = new AtomicIntegerArray(Scenario.WORKER_IDS);
    AtomicBoolean writing = new AtomicBoolean(true);
    Queue<String> violations = new ConcurrentLinkedQueue<>();
    Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
    AtomicLong reads = new AtomicLong();
    CountDownLatch start = new CountDownLatch(1);

    List<Thread> writers = new ArrayList<>();
    for (int id = 0; id < Scenario.WORKER_IDS; id++) {
      int worker = id;
      writers.add(
          new Thread(
              () -> {
                try {
                  start.await();
                  List<Scenario.Action> actions = work.streams.get(worker);
                  for (int i = 0; i < actions.size(); i++) {
                    Scenario.Action a = actions.get(i);
                    if (a.removedWorker() != null) {
                      tree.removeWorker(a.removedWorker());
                    } else {
                      tree.apply(a.rank(), a.event());
                    }
                    progress.set(worker, i + 1);
                  }
                } catch (Throwable t) {
                  errors.add(t);
                }
              },
              "writer-" + id));
    }
    List<Thread> readers = new ArrayList<>();
    for (int r = 0; r < READERS; r++) {
      Random random = new Random(seed * 1000 + r);
      readers.add(
          new Thread(
              () -> {
                try {
                  start.await();
                  int[] before = new int[Scenario.WORKER_IDS];
                  int[] after = new int[Scenario.WORKER_IDS];
                  do {
                    int q = random.nextInt(work.queries.size());
                    long[] query = work.queries.get(q);
                    for (int id = 0; id < before.length; id++) {
                      before[id] = progress.get(id);
                    }
                    OverlapScores scores = tree.findMatches(query);
                    for (int id = 0; id < after.length; id++) {
                      after[id] = progress.get(id);
                    }
                    reads.incrementAndGet();
                    check(work, q, query, scores, before, after, violations);
                  } while (writing.get());
                } catch (Throwable t) {
                  errors.add(t);
                }
              },
              "reader-" + r));
    }
    writers.forEach(Thread::start);
    readers.forEach(Thread::start);
    start.countDown();
    for (Thread w : writers) {
      w.join();
    }
    writing.set(false);
    for (Thread r : readers) {
      r.join();
    }

    assertThat(errors).isEmpty();
    assertThat(violations).isEmpty();
    assertThat(reads.get()).isPositive();
    TreeInvariants.check(tree);
    assertThat(tree.heldBlocks()).isEqualTo(work.finalModel.heldBlocks());
    for (long[] q : work.queries) {
      assertThat(tree.findMatches(q).overlapBlocks()).isEqualTo(work.finalModel.scores(q));
    }
  }

  private static void check(
      Workload work,
      int q,
      long[] query,
      OverlapScores scores,
      int[] before,
      int[] after,
      Queue<String> violations) {
    for (Map.Entry<WorkerRank, Integer> e : scores.overlapBlocks().entrySet()) {
      if (e.getValue() < 1 || e.getValue() > query.length) {
        violations.add("malformed score " + e);
      }
      if (!scores.cachedBlocks().containsKey(e.getKey())
          || scores.cachedBlocks().get(e.getKey()) < 0) {
        violations.add("no cached count for " + e.getKey());
      }
    }
    for (int id = 0; id < Scenario.WORKER_IDS; id++) {
      // the state at any moment of the read lies between "before" events applied and one more
      // than "after" (an event may be half-applied), and one event moves a score monotonically
      int last = Math.min(after[id] + 1, EVENTS_PER_WORKER);
      for (int r = 0; r < Scenario.DP_RANKS; r++) {
        WorkerRank rank = Scenario.rank(id * Scenario.DP_RANKS + r);
        int lo = Integer.MAX_VALUE;
        int hi = Integer.MIN_VALUE;
        for (int i = before[id]; i <= last; i++) {
          lo = Math.min(lo, work.expected[id][i][q][r]);
          hi = Math.max(hi, work.expected[id][i][q][r]);
        }
        int seen = scores.overlap(rank);
        if (seen < lo || seen > hi) {
          violations.add(
              rank
                  + " scored "
                  + seen
                  + " outside ["
                  + lo
                  + ", "
                  + hi
                  + "] during events "
                  + before[id]
                  + ".."
                  + last);
        }
      }
    }
  }

  @Test
  void shardedIndexer_concurrentProducersAndReaders_endExactlyAtTheModel() throws Exception {
    Workload work = new Workload(7);
    // the highest score each rank ever has for each query bounds every read
    int[][][] highest = new int[Scenario.WORKER_IDS][work.queries.size()][Scenario.DP_RANKS];
    for (int id = 0; id < Scenario.WORKER_IDS; id++) {
      for (int[][] atEvent : work.expected[id]) {
        for (int q = 0; q < work.queries.size(); q++) {
          for (int r = 0; r < Scenario.DP_RANKS; r++) {
            highest[id][q][r] = Math.max(highest[id][q][r], atEvent[q][r]);
          }
        }
      }
    }
    Queue<String> violations = new ConcurrentLinkedQueue<>();
    Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
    AtomicBoolean writing = new AtomicBoolean(true);
    try (ShardedKvIndexer kv = new ShardedKvIndexer(4, null, ShardedKvIndexer.daemonThreads())) {
      List<Thread> producers = new ArrayList<>();
      for (int id = 0; id < Scenario.WORKER_IDS; id++) {
        List<Scenario.Action> actions = work.streams.get(id);
        producers.add(
            new Thread(
                () -> {
                  for (Scenario.Action a : actions) {
                    if (a.removedWorker() != null) {
                      kv.removeWorker(a.removedWorker());
                    } else {
                      kv.apply(a.rank(), a.event());
                    }
                  }
                }));
      }
      List<Thread> readers = new ArrayList<>();
      for (int r = 0; r < READERS; r++) {
        Random random = new Random(r);
        readers.add(
            new Thread(
                () -> {
                  try {
                    do {
                      int q = random.nextInt(work.queries.size());
                      OverlapScores scores = kv.findMatches(work.queries.get(q));
                      for (Map.Entry<WorkerRank, Integer> e : scores.overlapBlocks().entrySet()) {
                        int id = Integer.parseInt(e.getKey().workerId().substring(1));
                        int max = highest[id][q][e.getKey().dpRank()];
                        if (e.getValue() < 1 || e.getValue() > max) {
                          violations.add(e + " outside [1, " + max + "]");
                        }
                      }
                    } while (writing.get());
                  } catch (Throwable t) {
                    errors.add(t);
                  }
                }));
      }
      readers.forEach(Thread::start);
      producers.forEach(Thread::start);
      for (Thread p : producers) {
        p.join();
      }
      kv.flush().toCompletableFuture().join();
      writing.set(false);
      for (Thread r : readers) {
        r.join();
      }

      assertThat(errors).isEmpty();
      assertThat(violations).isEmpty();
      TreeInvariants.check(kv.tree());
      assertThat(kv.tree().heldBlocks()).isEqualTo(work.finalModel.heldBlocks());
      assertThat(kv.stats().pending()).isZero();
      assertThat(kv.stats().parentBlockNotFound() + kv.stats().invalidBlockSequence()).isZero();
      for (long[] q : work.queries) {
        assertThat(kv.findMatches(q).overlapBlocks()).isEqualTo(work.finalModel.scores(q));
      }
    }
  }
}
