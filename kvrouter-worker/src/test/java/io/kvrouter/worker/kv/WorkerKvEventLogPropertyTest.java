package io.kvrouter.worker.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult.Events;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult.TooNew;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult.TreeDump;
import io.kvrouter.routing.index.KvIndexer;
import io.kvrouter.testing.DynamoWorkload;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@link WorkerKvEventLog} against a real {@link BlockPool} under seeded random workloads: a
 * router's {@link KvIndexer} rebuilt from a tree dump, or from a tree dump and later event slices
 * after missed events, ends holding exactly what the cache holds (engine hash, router tokens hash);
 * and tree dumps taken while other threads change the cache reflect exactly the events up to their
 * {@code lastEventId}.
 */
class WorkerKvEventLogPropertyTest {
  private static final WorkerRank RANK = new WorkerRank("3", 0);

  @Test
  void treeDump_rebuildsARouterIndex_equalToTheCache() {
    for (long seed = 0; seed < 30; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      BlockPool kv = new BlockPool(16 + random.nextInt(48), 4);
      WorkerKvEventLog log = WorkerKvEventLog.attach(kv, RANK, 1 + random.nextInt(64));
      DynamoWorkload workload = new DynamoWorkload(kv, seed);
      for (int round = 0; round < 4; round++) {
        for (int i = random.nextInt(150); i > 0; i--) {
          workload.step();
        }
        try (KvIndexer router = KvIndexer.create(1, null)) {
          // a stale router state for the rank first: the dump's leading Cleared must wipe it
          router.apply(
              RANK,
              io.kvrouter.protocol.KvCacheEvent.stored(
                  null, new io.kvrouter.protocol.KvCacheEvent.StoredBlock(1, 2)));
          TreeDump dump = (TreeDump) log.query(null, null);
          assertThat(dump.lastEventId()).isEqualTo(Math.max(0, log.newestEventId()));
          dump.events().forEach(e -> router.apply(e.event().worker(), e.event().event()));
          assertThat(DynamoWorkload.blocksOf(router))
              .as("seed %d round %d", seed, round)
              .isEqualTo(DynamoWorkload.blocksOf(kv.snapshot()));
        }
      }
    }
  }

  /** A router following the log's live stream, losing some of it, recovering by query. */
  private static final class FollowingRouter implements DynamoEventListener {
    final WorkerKvEventLog log;
    final SplittableRandom random;
    final double loss;
    KvIndexer index = KvIndexer.create(1, null);
    long expected;
    int slices;
    int dumps;

    FollowingRouter(WorkerKvEventLog log, SplittableRandom random, double loss) {
      this.log = log;
      this.random = random;
      this.loss = loss;
    }

    @Override
    public void onEvent(DynamoRouterEvent event) {
      if (random.nextDouble() < loss) {
        return; // lost on the wire
      }
      if (event.eventId() < expected) {
        return; // already recovered through a query
      }
      if (event.eventId() > expected) {
        catchUp(); // a gap: events expected..id-1 were missed
        return; // the slice or dump covered this event too
      }
      apply(event);
    }

    void apply(DynamoRouterEvent event) {
      index.apply(event.event().worker(), event.event().event());
      expected = event.eventId() + 1;
    }

    void catchUp() {
      WorkerKvQueryResult result = log.query(expected, null);
      if (result instanceof Events events) {
        slices++;
        assertThat(events.events().get(0).eventId()).isEqualTo(expected);
        events.events().forEach(this::apply);
      } else if (result instanceof TreeDump dump) {
        dumps++;
        dump.events().forEach(e -> index.apply(e.event().worker(), e.event().event()));
        expected = dump.lastEventId() + 1;
      } else {
        assertThat(result).isEqualTo(new TooNew(expected, null, expected - 1));
      }
    }

    /** Forgets everything, as a restarted router does, and starts again from a tree dump. */
    void restart() {
      index.close();
      index = KvIndexer.create(1, null);
      TreeDump dump = (TreeDump) log.query(null, null);
      dumps++;
      dump.events().forEach(e -> index.apply(e.event().worker(), e.event().event()));
      expected = dump.lastEventId() + 1;
    }
  }

  @Test
  void treeDumpThenSlices_afterLostEvents_andRestarts_keepTheRouterEqualToTheCache() {
    int slices = 0;
    int dumps = 0;
    for (long seed = 100; seed < 130; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      BlockPool kv = new BlockPool(16 + random.nextInt(48), 4);
      WorkerKvEventLog log = WorkerKvEventLog.attach(kv, RANK, 4 + random.nextInt(24));
      FollowingRouter router = new FollowingRouter(log, random, random.nextDouble() * 0.3);
      log.subscribe(router);
      DynamoWorkload workload = new DynamoWorkload(kv, seed);
      for (int i = 0; i < 600; i++) {
        workload.step();
        if (random.nextInt(200) == 0 && log.newestEventId() >= 0) {
          router.restart();
        }
        if (random.nextInt(100) == 0) {
          // a burst the router never sees (a partition): longer than the buffer, sometimes
          log.unsubscribe(router);
          for (int j = random.nextInt(40); j > 0; j--) {
            workload.step();
          }
          log.subscribe(router);
        }
      }
      router.catchUp(); // the tail may have been lost with no later event to reveal the gap
      assertThat(router.expected).isEqualTo(log.newestEventId() + 1);
      assertThat(DynamoWorkload.blocksOf(router.index))
          .as("seed %d", seed)
          .isEqualTo(DynamoWorkload.blocksOf(kv.snapshot()));
      router.index.close();
      slices += router.slices;
      dumps += router.dumps;
    }
    assertThat(slices).as("gaps recovered from the buffer").isGreaterThan(20);
    assertThat(dumps).as("gaps older than the buffer, and restarts").isGreaterThan(20);
  }

  @Test
  void gap_withinTheBuffer_isAnsweredWithTheMissedEvents_olderThanIt_withATreeDump() {
    BlockPool kv = new BlockPool(32, 4);
    WorkerKvEventLog log = WorkerKvEventLog.attach(kv, RANK, 8);
    DynamoWorkload workload = new DynamoWorkload(kv, 7);
    while (log.newestEventId() < 5) {
      workload.step();
    }
    List<DynamoRouterEvent> seen = ((Events) log.query(0L, 5L)).events();
    while (log.newestEventId() < 9) { // the router misses events 6..9 (and maybe more)
      workload.step();
    }
    Events missed = (Events) log.query(6L, null);
    assertThat(missed.events().get(0).eventId()).isEqualTo(6);
    assertThat(missed.events().get(missed.events().size() - 1).eventId())
        .isEqualTo(log.newestEventId());
    try (KvIndexer router = KvIndexer.create(1, null)) {
      seen.forEach(e -> router.apply(e.event().worker(), e.event().event()));
      missed.events().forEach(e -> router.apply(e.event().worker(), e.event().event()));
      assertThat(DynamoWorkload.blocksOf(router)).isEqualTo(DynamoWorkload.blocksOf(kv.snapshot()));
    }

    while (log.newestEventId() < 30) { // now 6.. has left the 8-event buffer
      workload.step();
    }
    TreeDump dump = (TreeDump) log.query(6L, null);
    assertThat(dump.lastEventId()).isEqualTo(log.newestEventId());
    try (KvIndexer router = KvIndexer.create(1, null)) {
      seen.forEach(e -> router.apply(e.event().worker(), e.event().event()));
      dump.events().forEach(e -> router.apply(e.event().worker(), e.event().event()));
      assertThat(DynamoWorkload.blocksOf(router)).isEqualTo(DynamoWorkload.blocksOf(kv.snapshot()));
    }
  }

  @Test
  void treeDumps_takenWhileOtherThreadsChangeTheCache_reflectExactlyTheEventsUpToTheirLastId()
      throws Exception {
    BlockPool kv = new BlockPool(48, 4);
    WorkerKvEventLog log = WorkerKvEventLog.attach(kv, RANK, 16);
    List<DynamoRouterEvent> stream = new ArrayList<>();
    log.subscribe(
        e -> {
          synchronized (stream) {
            stream.add(e);
          }
        });
    int threads = 3;
    CountDownLatch done = new CountDownLatch(threads);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    // the writers go on until the reader has taken enough dumps, however slow the machine
    AtomicInteger dumpsTaken = new AtomicInteger();
    for (int t = 0; t < threads; t++) {
      DynamoWorkload workload = new DynamoWorkload(kv, 500 + t, "t" + t + "-");
      Thread thread =
          new Thread(
              () -> {
                try {
                  for (int i = 0; i < 3_000 || dumpsTaken.get() <= 10; i++) {
                    workload.step();
                  }
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                } finally {
                  done.countDown();
                }
              });
      thread.setDaemon(true);
      thread.start();
    }
    while (log.newestEventId() < 0) {
      Thread.onSpinWait();
    }
    List<TreeDump> dumps = new ArrayList<>();
    while (done.getCount() > 0) {
      dumps.add((TreeDump) log.query(null, null));
      dumpsTaken.incrementAndGet();
      Thread.yield();
    }
    done.await();
    assertThat(failure.get()).isNull();
    List<DynamoRouterEvent> all;
    synchronized (stream) {
      all = List.copyOf(stream);
    }
    for (int i = 0; i < all.size(); i++) {
      assertThat(all.get(i).eventId()).as("listener order").isEqualTo(i);
    }
    assertThat(dumps.size()).isGreaterThan(10);
    dumps.sort(Comparator.comparingLong(TreeDump::lastEventId));
    Map<Long, Long> replayed = new HashMap<>();
    int next = 0;
    for (TreeDump dump : dumps) {
      while (next <= dump.lastEventId()) {
        DynamoWorkload.replay(replayed, all.get(next++).event().event());
      }
      Map<Long, Long> copy = new HashMap<>(replayed);
      assertThat(DynamoWorkload.blocksOf(dump.events()))
          .as("dump at %d", dump.lastEventId())
          .isEqualTo(DynamoWorkload.blocksOf(copy));
    }
    assertThat(DynamoWorkload.blocksOf(((TreeDump) log.query(null, null)).events()))
        .isEqualTo(DynamoWorkload.blocksOf(kv.snapshot()));
  }
}
