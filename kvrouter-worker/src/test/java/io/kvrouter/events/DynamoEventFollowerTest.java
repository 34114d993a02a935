package io.kvrouter.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.KvEventFeed;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoEventCodec;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.dynamo.WorkerKvQueryCodec;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult;
import io.kvrouter.routing.index.KvIndexer;
import io.kvrouter.testing.DynamoWorkload;
import io.kvrouter.worker.kv.BlockPool;
import io.kvrouter.worker.kv.WorkerKvEventLog;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A real worker cache and its {@link WorkerKvEventLog} publish Dynamo events through the JSON codec
 * to a {@link DynamoEventFollower} feeding a real index; the wire between them loses, repeats and
 * delays on purpose, and recovery queries go to the log through the query codec. After each story
 * the index must hold exactly the worker's cache.
 */
class DynamoEventFollowerTest {
  private static final WorkerRank RANK = new WorkerRank("7", 0);
  private static final Duration WAIT = Duration.ofSeconds(20);

  /** Long enough that the stories below see no probe unless they wait for one. */
  private static final Duration PROBE = Duration.ofSeconds(2);

  private final KvIndexer index = KvIndexer.create(1, null);
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  /** Answers held back, to be given late. */
  private final List<Runnable> parked = new ArrayList<>();

  private final AtomicInteger queries = new AtomicInteger();

  /** Answer queries with an error while positive, counting down. */
  private final AtomicInteger failNext = new AtomicInteger();

  /** Park the answers of queries while true, to answer them late. */
  private volatile boolean parkAnswers;

  /** Parked answers are what the worker said when asked, not when the answer is given. */
  private volatile boolean answerWhenAsked;

  /** Tree dumps leave out their last_event_id, as older Dynamo workers' do. */
  private volatile boolean dumpsWithoutPosition;

  private Worker worker;
  private DynamoEventFollower follower =
      new DynamoEventFollower(index, this::query, false, PROBE, meters);

  @AfterEach
  void close() {
    follower.close();
    index.close();
  }

  /** A simulated worker rank: its cache, its event log and a wire that may lose events. */
  private final class Worker {
    final BlockPool kv = new BlockPool(48, 4);
    final WorkerKvEventLog log;
    final DynamoWorkload workload;
    volatile Predicate<Long> lose = id -> false;
    volatile Predicate<Long> repeat = id -> false;

    /** While positive, events go as msgpack batches of this many (Dynamo's ZMQ plane). */
    volatile int msgpackBatch;

    final List<DynamoRouterEvent> batch = new ArrayList<>();

    /** While true, live events wait in {@link #lagging} (a slow delivery queue). */
    volatile boolean lag;

    final List<byte[]> lagging = new ArrayList<>();

    Worker(long seed, int buffer) {
      log = WorkerKvEventLog.attach(kv, RANK, buffer);
      workload = new DynamoWorkload(kv, seed);
      log.subscribe(
          event -> {
            if (lose.test(event.eventId())) {
              return;
            }
            if (msgpackBatch > 0) {
              batch.add(event);
              if (batch.size() == msgpackBatch) {
                follower.onMsgpack(DynamoMsgpackCodec.encodeBatch(batch));
                batch.clear();
              }
              return;
            }
            byte[] json = DynamoEventCodec.encode(event);
            if (lag) {
              synchronized (lagging) {
                lagging.add(json);
              }
              return;
            }
            follower.onMessage(json);
            if (repeat.test(event.eventId())) {
              follower.onMessage(json);
            }
          });
    }

    void steps(int n) {
      for (int i = 0; i < n; i++) {
        workload.step();
      }
    }

    /** Delivers what the slow queue held, in order, and stops lagging. */
    void catchUp() {
      synchronized (lagging) {
        lag = false;
        lagging.forEach(follower::onMessage);
        lagging.clear();
      }
    }

    /** Steps until {@code n} more events were published. */
    void events(int n) {
      long target = log.newestEventId() + n;
      while (log.newestEventId() < target) {
        workload.step();
      }
    }
  }

  private CompletableFuture<WorkerKvQueryResult> query(WorkerRank rank, Long start, Long end) {
    queries.incrementAndGet();
    if (failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      return CompletableFuture.failedFuture(new IllegalStateException("no responders"));
    }
    Worker asked = worker;
    byte[] question =
        WorkerKvQueryCodec.encodeQuery(
            new WorkerKvQueryCodec.Query(
                DynamoEventCodec.workerIdToU64(rank.workerId()), rank.dpRank(), start, end));
    WorkerKvQueryCodec.Query q = WorkerKvQueryCodec.decodeQuery(question);
    CompletableFuture<WorkerKvQueryResult> answer = new CompletableFuture<>();
    WorkerKvQueryResult early = answerWhenAsked ? asked.log.query(q.start(), q.end()) : null;
    Runnable respond =
        () -> {
          WorkerKvQueryResult result = early != null ? early : asked.log.query(q.start(), q.end());
          if (dumpsWithoutPosition && result instanceof WorkerKvQueryResult.TreeDump dump) {
            result = new WorkerKvQueryResult.TreeDump(dump.events(), null);
          }
          answer.complete(WorkerKvQueryCodec.decodeResult(WorkerKvQueryCodec.encodeResult(result)));
        };
    if (parkAnswers) {
      synchronized (parked) {
        parked.add(respond);
      }
      return answer;
    }
    CompletableFuture.runAsync(respond);
    return answer;
  }

  private void awaitConverged() {
    Awaitility.await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              follower.sync().join();
              assertThat(DynamoWorkload.blocksOf(index))
                  .isEqualTo(DynamoWorkload.blocksOf(worker.kv.snapshot()));
              assertThat(feed().state()).isEqualTo("following");
            });
    assertThat(index.stats().rejected()).as("nothing the router rejected").isZero();
  }

  private KvEventFeed feed() {
    return follower.feed(RANK);
  }

  @Test
  void msgpackBatches_areAppliedInOrder_gapsAcrossThemFetched_andAMalformedOneCounted() {
    worker = new Worker(21, 1024);
    worker.msgpackBatch = 4;
    SplittableRandom random = new SplittableRandom(21);
    worker.lose = id -> id > 0 && random.nextDouble() < 0.05;
    worker.steps(300);
    worker.lose = id -> false;
    worker.events(8); // complete batches after the last lost event reveal it

    follower.onMsgpack(new byte[] {(byte) 0x91, (byte) 0xc1}); // a list holding a reserved byte

    awaitConverged();
    assertThat(feed().gaps()).isPositive();
    assertThat(meters.get(MetricNames.KV_EVENT_MALFORMED).tag("format", "dynamo").counter().count())
        .isEqualTo(1);
  }

  @Test
  void fromTheWorkersFirstEvent_followsWithoutAReset() {
    worker = new Worker(1, 1024);
    worker.steps(300);
    awaitConverged();

    assertThat(feed().lastSeq()).isEqualTo(worker.log.newestEventId());
    assertThat(feed().batches()).isEqualTo(worker.log.newestEventId() + 1);
    assertThat(feed().resets()).isZero();
  }

  @Test
  void lostEvents_areFetchedAsEvents_fromTheWorkersBuffer() {
    worker = new Worker(2, 1024);
    SplittableRandom random = new SplittableRandom(2);
    worker.lose = id -> id > 0 && random.nextDouble() < 0.05;
    worker.steps(400);
    worker.lose = id -> false;
    worker.events(5); // the next event after a lost tail reveals it

    awaitConverged();
    assertThat(feed().gaps()).isPositive();
    assertThat(feed().resets()).as("every gap was in the buffer: no tree dump").isZero();
    assertThat(
            meters.get(MetricNames.KV_EVENT_GAPS).tag("worker_id", "7").functionCounter().count())
        .isEqualTo(feed().gaps());
  }

  @Test
  void aLostLastEvent_isFetchedByProbingTheQuietRank() {
    worker = new Worker(12, 1024);
    worker.events(50);
    worker.lose = id -> true; // the tail never arrives, and nothing follows it
    worker.events(3);

    awaitConverged();
    assertThat(feed().lastSeq()).isEqualTo(worker.log.newestEventId());
    assertThat(feed().resets()).isZero();
  }

  @Test
  void aProbedQuietRank_thatMissedNothing_staysAsItIs() throws Exception {
    worker = new Worker(13, 1024);
    worker.events(50);
    awaitConverged();
    Awaitility.await().atMost(WAIT).until(() -> queries.get() >= 2); // probed twice
    assertThat(feed().resets()).isZero();
    assertThat(feed().batches()).isEqualTo(worker.log.newestEventId() + 1);
    assertThat(feed().state()).isEqualTo("following");
  }

  @Test
  void aGapOlderThanTheBuffer_isRebuiltFromATreeDump() {
    worker = new Worker(3, 8);
    worker.lose = id -> id > 5;
    worker.events(200);
    worker.lose = id -> false;
    worker.events(5);

    awaitConverged();
    assertThat(feed().resets()).isEqualTo(1);
  }

  @Test
  void atLeastOnce_repeatedEvents_areAppliedOnce() {
    follower.close();
    follower = new DynamoEventFollower(index, this::query, true, PROBE, meters);
    worker = new Worker(4, 1024);
    worker.repeat = id -> id % 3 == 0;
    worker.steps(300);

    awaitConverged();
    assertThat(feed().batches()).isEqualTo(worker.log.newestEventId() + 1);
  }

  @Test
  void aNewRouter_asksForTheStateOfAQuietWorker() {
    worker = new Worker(5, 16);
    worker.lose = id -> true; // the router was not there
    worker.steps(200);

    follower.follow(RANK);
    awaitConverged();
    assertThat(feed().resets()).isEqualTo(1);
    assertThat(feed().lastSeq()).isEqualTo(worker.log.newestEventId());

    worker.lose = id -> false;
    worker.steps(50);
    awaitConverged();
    assertThat(feed().resets()).isEqualTo(1);
  }

  @Test
  void aWorkerRestart_replacesWhatTheRankHeld() {
    worker = new Worker(6, 1024);
    worker.steps(200);
    awaitConverged();

    worker.log.close();
    worker = new Worker(66, 1024); // a new process: ids from 0 again, an empty cache
    worker.steps(100);
    awaitConverged();
    assertThat(feed().resets()).isEqualTo(1);
  }

  @Test
  void atMostOnce_aWorkerRestartWhoseFirstEventsWereLost_isNoticedByItsRepeatedIds() {
    worker = new Worker(7, 1024);
    worker.steps(300);
    awaitConverged();

    worker.log.close();
    worker = new Worker(77, 1024); // a new process, ids from 0 again
    worker.lose = id -> id < 5; // its first events never arrived
    worker.events(40);
    worker.lose = id -> false;
    worker.events(5);

    awaitConverged();
    assertThat(feed().resets()).isEqualTo(1);
  }

  @Test
  void failedQueries_areRetried_andTheRankReadsStaleMeanwhile() {
    worker = new Worker(8, 8);
    worker.lose = id -> true;
    worker.steps(100);
    failNext.set(3);

    follower.follow(RANK);
    Awaitility.await().atMost(WAIT).until(() -> "stale".equals(feed().state()));
    awaitConverged();
    assertThat(feed().incompleteReplays()).isEqualTo(3);
    assertThat(queries).hasValueGreaterThanOrEqualTo(4);
  }

  @Test
  void anAnswerToAnOlderQuestion_isIgnored() {
    worker = new Worker(9, 1024);
    worker.steps(100);
    worker.lose = id -> true;
    worker.steps(50);
    parkAnswers = true;
    follower.follow(RANK); // a dump asked, its answer parked
    Awaitility.await().atMost(WAIT).until(() -> queries.get() == 1);

    worker.log.close();
    parkAnswers = false;
    worker = new Worker(99, 1024); // restarts: its event 0 supersedes the parked question
    worker.steps(100);
    synchronized (parked) {
      parked.forEach(Runnable::run); // the old worker's dump answers now
    }
    awaitConverged();
    assertThat(feed().lastSeq()).isEqualTo(worker.log.newestEventId());
  }

  @Test
  void aMalformedPayload_isCountedAndDropped() {
    worker = new Worker(10, 1024);
    follower.onMessage("{\"worker_id\":\"seven\"}".getBytes(StandardCharsets.UTF_8));
    follower.onMessage(new byte[0]);
    worker.steps(50);

    awaitConverged();
    assertThat(meters.get(MetricNames.KV_EVENT_MALFORMED).counter().count()).isEqualTo(2);
  }

  @ParameterizedTest(name = "at least once: {0}")
  @ValueSource(booleans = {false, true})
  void aWorkerWithNoEventsYet_dumpsAtZero_andItsEvent0IsThenApplied(boolean atLeastOnce) {
    follower.close();
    follower = new DynamoEventFollower(index, this::query, atLeastOnce, PROBE, meters);
    worker = new Worker(20, 1024);
    follower.follow(RANK); // asked before the worker's first event: TreeDump(last 0), empty
    Awaitility.await().atMost(WAIT).until(() -> feed().resets() == 1);

    worker.events(30);
    awaitConverged();
    assertThat(feed().batches()).as("event 0 too").isEqualTo(worker.log.newestEventId() + 1);
    assertThat(feed().resets()).isEqualTo(1);
  }

  @Test
  void eventsStillInFlightWhenAnAnswerCame_areDropped_notTakenForARestart() {
    worker = new Worker(21, 1024);
    worker.events(40);
    awaitConverged();
    worker.lag = true; // the next events are slow to arrive
    worker.events(20);
    follower.follow(RANK); // and a dump that covers them overtakes them
    Awaitility.await().atMost(WAIT).until(() -> feed().resets() == 1);
    worker.catchUp();
    worker.events(10);

    awaitConverged();
    assertThat(feed().resets()).as("no dump but the one asked for").isEqualTo(1);
    assertThat(queries).as("nothing asked after it").hasValue(1);
  }

  @Test
  void tooManyHeldEvents_askForATreeDumpInstead() {
    follower.close();
    follower = new DynamoEventFollower(index, this::query, false, PROBE, meters, 16);
    worker = new Worker(22, 1024);
    worker.events(10);
    awaitConverged();
    parkAnswers = true;
    worker.lose = id -> id == 11; // a gap: later events are held while its answer is parked
    worker.events(60);
    Awaitility.await().atMost(WAIT).until(() -> queries.get() >= 2); // the gap, then the dump
    parkAnswers = false;
    synchronized (parked) {
      parked.forEach(Runnable::run);
    }
    worker.lose = id -> false;
    worker.events(5);

    awaitConverged();
    assertThat(feed().resets()).isEqualTo(1);
  }

  @Test
  void aFailedProbe_isAskedAgain_untilItIsAnswered() {
    worker = new Worker(23, 1024);
    worker.events(30);
    worker.lose = id -> true;
    worker.events(2); // a lost tail, and the rank goes quiet
    failNext.set(2); // the probe's first two tries fail

    awaitConverged();
    assertThat(feed().incompleteReplays()).isEqualTo(2);
    assertThat(feed().lastSeq()).isEqualTo(worker.log.newestEventId());
  }

  @Test
  void eventsArrivingWhileAProbeIsOut_areApplied_whenItSaysNothingWasMissed() {
    worker = new Worker(24, 1024);
    worker.events(30);
    awaitConverged();
    parkAnswers = true;
    answerWhenAsked = true; // TooNew: nothing after the last event, as things were when asked
    Awaitility.await().atMost(WAIT).until(() -> queries.get() == 1);
    worker.events(5); // held: a question is out
    parkAnswers = false;
    failNext.set(Integer.MAX_VALUE); // no later question helps: the answer out must do it
    synchronized (parked) {
      parked.forEach(Runnable::run);
    }

    awaitConverged();
    assertThat(feed().lastSeq()).isEqualTo(worker.log.newestEventId());
    assertThat(feed().resets()).isZero();
  }

  @Test
  void aWorkerThatNeverAnswers_isFollowedAsBestItCan_untilItAnswers() {
    worker = new Worker(25, 1024);
    worker.lose = id -> true; // the router missed the start
    worker.events(40);
    worker.lose = id -> false;
    failNext.set(Integer.MAX_VALUE);
    follower.follow(RANK);
    worker.events(40);

    Awaitility.await()
        .atMost(WAIT)
        .until(() -> "stale".equals(feed().state()) && feed().batches() > 0);
    worker.events(20);
    Awaitility.await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              follower.sync().join();
              assertThat(feed().lastSeq())
                  .as("its events are applied without waiting")
                  .isEqualTo(worker.log.newestEventId());
            });
    failNext.set(0); // it answers again: the next dump puts the rank right

    awaitConverged();
    assertThat(feed().resets()).isEqualTo(1);
  }

  @Test
  void aTreeDumpWithoutItsLastEventId_takesItsPositionFromTheNextEvent() {
    dumpsWithoutPosition = true;
    worker = new Worker(26, 16);
    worker.lose = id -> true;
    worker.events(100);
    worker.lose = id -> false;
    follower.follow(RANK);
    Awaitility.await().atMost(WAIT).until(() -> feed().resets() == 1);
    worker.events(30);

    awaitConverged();
    assertThat(feed().lastSeq()).isEqualTo(worker.log.newestEventId());
  }

  /** A worker that restarts within a second of an answer: its event 0 is not a straggler. */
  @ParameterizedTest(name = "at least once: {0}")
  @ValueSource(booleans = {false, true})
  void aRestartRightAfterAProbeAnswer_isNotSwallowedAsStragglers(boolean atLeastOnce) {
    follower.close();
    follower = new DynamoEventFollower(index, this::query, atLeastOnce, PROBE, meters);
    worker = new Worker(30, 1024);
    worker.events(50);
    awaitConverged();
    worker.lose = id -> true;
    worker.events(2); // a lost tail: the probe fetches it, answeredUpTo = last
    long tail = worker.log.newestEventId();
    Awaitility.await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(5))
        .until(
            () -> {
              follower.sync().join();
              return feed().lastSeq() == tail;
            });
    worker.log.close();
    worker = new Worker(31, 1024); // restarts now, < 1 s after the probe's answer
    worker.events((int) tail + 20); // its ids pass the old position

    awaitConverged();
  }

  /** Best effort: a dump asked of the old process, answered after the worker restarted. */
  @Test
  void bestEffort_aDumpFromBeforeARestart_doesNotOverrideTheNewProcess() {
    follower.close();
    follower = new DynamoEventFollower(index, this::query, true, PROBE, meters);
    worker = new Worker(40, 1024);
    worker.events(50);
    awaitConverged();
    failNext.set(Integer.MAX_VALUE);
    follower.follow(RANK); // a dump that keeps failing: best effort after 3
    Awaitility.await().atMost(WAIT).until(() -> feed().incompleteReplays() >= 3);
    parkAnswers = true;
    answerWhenAsked = true; // the dump is what the OLD process held
    int before = queries.get();
    failNext.set(0);
    Awaitility.await().atMost(WAIT).until(() -> queries.get() > before); // the retry is out
    worker.log.close();
    parkAnswers = false;
    answerWhenAsked = false;
    worker = new Worker(41, 1024); // restarts: events 0.. applied and held (best effort)
    worker.events(10);
    follower.sync().join();
    synchronized (parked) {
      parked.forEach(Runnable::run); // the old process's dump arrives now
    }
    worker.events(80); // ids pass the old position: 10..~52 dropped as repeats, then applied

    awaitConverged();
  }

  /**
   * An Events answer with a hole is not asked again at once, forever (it was, 3.6 M times a
   * second).
   */
  @Test
  void anAnswerWithAHole_isNotAskedAgainInATightLoop() throws Exception {
    follower.close();
    AtomicInteger asked = new AtomicInteger();
    follower =
        new DynamoEventFollower(
            index,
            (rank, start, end) -> {
              asked.incrementAndGet();
              if (start == null) {
                return CompletableFuture.completedFuture(
                    new WorkerKvQueryResult.TreeDump(List.of(), 0L));
              }
              return CompletableFuture.completedFuture(new WorkerKvQueryResult.Events(List.of()));
            },
            false,
            PROBE,
            meters);
    for (long id : new long[] {0, 1, 3}) { // event 2 lost
      follower.onMessage(
          DynamoEventCodec.encode(
              new io.kvrouter.protocol.dynamo.DynamoRouterEvent(
                  new io.kvrouter.protocol.RouterEvent(
                      RANK, io.kvrouter.protocol.KvCacheEvent.cleared()),
                  id)));
    }
    Thread.sleep(500);
    assertThat(asked.get()).as("queries in 0.5 s").isLessThan(20);
  }

  /** Held events overflowing while a dump is out do not supersede it: steady traffic starved it. */
  @Test
  void aSteadyStream_whileADumpIsOut_doesNotSupersedeItForever() throws Exception {
    follower.close();
    follower = new DynamoEventFollower(index, this::query, false, PROBE, meters, 16);
    worker = new Worker(42, 1024);
    worker.events(10);
    awaitConverged();
    // each answer takes 50 ms; 16 events arrive faster than that
    parkAnswers = true;
    Thread feeder =
        new Thread(
            () -> {
              long until = System.nanoTime() + 3_000_000_000L;
              while (System.nanoTime() < until) {
                synchronized (parked) {
                  parked.forEach(
                      r ->
                          CompletableFuture.runAsync(
                              r,
                              CompletableFuture.delayedExecutor(
                                  50, java.util.concurrent.TimeUnit.MILLISECONDS)));
                  parked.clear();
                }
                try {
                  Thread.sleep(1);
                } catch (InterruptedException e) {
                  return;
                }
              }
            });
    feeder.start();
    follower.follow(RANK);
    long until = System.nanoTime() + 3_000_000_000L;
    while (System.nanoTime() < until) {
      worker.events(1);
      Thread.sleep(1);
    }
    feeder.join();
    assertThat(feed().resets()).as("some dump was taken in 3 s of steady traffic").isPositive();
  }
}
