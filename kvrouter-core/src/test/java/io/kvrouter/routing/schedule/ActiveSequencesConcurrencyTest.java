package io.kvrouter.routing.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.WorkerRank;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Many threads add, mark and free requests over a few ranks that share blocks, while a sweeper
 * frees requests older than 200 ticks (the ticker advances on every add and sweep, so it also
 * claims requests the routers are about to free) and a reader watches the loads: every request is
 * freed exactly once, no count is ever negative, and everything ends at zero.
 */
class ActiveSequencesConcurrencyTest {

  private static final int THREADS = 6;
  private static final int REQUESTS_PER_THREAD = 4_000;
  private static final List<WorkerRank> RANKS =
      List.of(WorkerRank.of("a"), new WorkerRank("a", 1), WorkerRank.of("b"), WorkerRank.of("c"));

  @Test
  void concurrentAddMarkFreeSweep_endsAtZero() throws Exception {
    AtomicLong ticks = new AtomicLong();
    ActiveSequences active = ActiveSequences.create(ticks::incrementAndGet);
    ExecutorService pool = Executors.newFixedThreadPool(THREADS + 2);
    CyclicBarrier start = new CyclicBarrier(THREADS + 2);
    AtomicBoolean done = new AtomicBoolean();
    try {
      List<Future<Integer>> routers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        routers.add(pool.submit(() -> route(active, thread, start)));
      }
      Future<Integer> sweeper =
          pool.submit(
              () -> {
                start.await();
                int swept = 0;
                while (!done.get()) {
                  swept += active.sweep(Duration.ofNanos(200));
                }
                return swept;
              });
      Future<Long> reader =
          pool.submit(
              () -> {
                start.await();
                long reads = 0;
                while (!done.get()) {
                  for (WorkerLoad load : active.loads().values()) {
                    assertNonNegative(load);
                  }
                  for (WorkerRank rank : RANKS) {
                    assertNonNegative(active.load(rank, new long[] {1, 2, 3}));
                  }
                  reads++;
                }
                return reads;
              });

      int freedByRouters = 0;
      for (Future<Integer> router : routers) {
        freedByRouters += router.get();
      }
      done.set(true);
      int swept = sweeper.get();
      assertThat(reader.get()).isPositive();

      ticks.addAndGet(1_000_000_000L);
      int sweptAtEnd = active.sweep(Duration.ZERO);

      assertThat(freedByRouters + swept + sweptAtEnd).isEqualTo(THREADS * REQUESTS_PER_THREAD);
      assertThat(active.activeRequests()).isZero();
      assertThat(active.loads()).isEmpty();
      for (WorkerRank rank : RANKS) {
        assertThat(active.load(rank)).isEqualTo(WorkerLoad.IDLE);
      }
    } finally {
      done.set(true);
      pool.shutdownNow();
    }
  }

  /**
   * Adds this thread's requests, keeping up to 16 in flight; frees most, leaves every tenth for the
   * sweeper. Returns how many its own frees released.
   */
  private static int route(ActiveSequences active, int thread, CyclicBarrier start)
      throws Exception {
    SplittableRandom random = new SplittableRandom(thread);
    List<String> inFlight = new ArrayList<>();
    int freed = 0;
    start.await();
    for (int i = 0; i < REQUESTS_PER_THREAD; i++) {
      String id = thread + "-" + i;
      WorkerRank rank = RANKS.get(random.nextInt(RANKS.size()));
      long[] blocks = new long[1 + random.nextInt(8)];
      long prefix = random.nextInt(4) * 1_000L;
      for (int b = 0; b < blocks.length; b++) {
        blocks[b] = prefix + b; // requests share prefixes, so blocks are shared across requests
      }
      assertThat(active.add(id, rank, blocks, random.nextInt(500))).isTrue();
      if (i % 10 != 0) {
        inFlight.add(id);
      }
      if (random.nextBoolean()) {
        active.markPrefillDone(id);
      }
      while (inFlight.size() > 16) {
        String victim = inFlight.remove(random.nextInt(inFlight.size()));
        if (random.nextInt(4) == 0) {
          active.markPrefillDone(victim);
        }
        if (active.free(victim)) {
          freed++;
        }
      }
    }
    for (String id : inFlight) {
      if (active.free(id)) {
        freed++;
      }
    }
    return freed;
  }

  private static void assertNonNegative(WorkerLoad load) {
    assertThat(load.activeRequests()).isNotNegative();
    assertThat(load.activeBlocks()).isNotNegative();
    assertThat(load.activePrefillTokens()).isNotNegative();
    assertThat(load.newBlocks()).isNotNegative();
  }
}
