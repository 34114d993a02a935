package io.kvrouter.events;

import static io.kvrouter.events.SimulatedDynamoWorker.RANK;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.KvEventFeed;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoEventCodec;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.dynamo.EventEnvelope;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult;
import io.kvrouter.routing.index.KvIndexer;
import io.kvrouter.testing.DynamoWorkload;
import io.kvrouter.testing.ManualTicker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The follower as a shell around its {@link DynamoEventSequencer}s (whose rules {@code
 * DynamoEventSequencerTest} and {@code DynamoEventSequencerStoryTest} cover): payloads decoded on
 * the caller's thread, events and answers handed to its own thread, questions sent through the
 * {@link DynamoEventFollower.RecoveryClient}, the time read from its {@link ManualTicker}, feeds
 * and metrics per rank. Real worker caches publish through the codecs to a real index; the tests
 * wait for states, and the clock moves only when a test moves it.
 */
class DynamoEventFollowerTest {
  private static final Duration PROBE = Duration.ofSeconds(2);

  private final KvIndexer index = KvIndexer.create(1, null);
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final ManualTicker clock = new ManualTicker();
  private final Map<WorkerRank, SimulatedDynamoWorker> workers = new ConcurrentHashMap<>();
  private final AtomicInteger queries = new AtomicInteger();
  private final List<Long> askedPublishers = new CopyOnWriteArrayList<>();
  private final List<WorkerRank> askedRanks = new CopyOnWriteArrayList<>();

  /**
   * Questions fail while positive, counting down: the very first question of a test by a throwing
   * client, any other by a failed future.
   */
  private final AtomicInteger failNext = new AtomicInteger();

  private final DynamoEventFollower follower =
      new DynamoEventFollower(index, this::query, false, PROBE, meters, clock);

  @AfterEach
  void close() {
    follower.close();
    index.close();
    workers.values().forEach(SimulatedDynamoWorker::close);
  }

  private CompletableFuture<WorkerKvQueryResult> query(
      WorkerRank rank, Long publisherId, Long start, Long end) {
    int asked = queries.incrementAndGet();
    askedPublishers.add(publisherId == null ? -1 : publisherId);
    askedRanks.add(rank);
    if (failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      if (asked == 1) {
        throw new IllegalStateException("cannot send the question");
      }
      return CompletableFuture.failedFuture(new IllegalStateException("no responders"));
    }
    return CompletableFuture.supplyAsync(() -> workers.get(rank).answer(rank, start, end));
  }

  /** A worker of {@code rank} whose events reach the follower as JSON, as on NATS. */
  private SimulatedDynamoWorker jsonWorker(WorkerRank rank, long seed, int buffer) {
    SimulatedDynamoWorker worker =
        new SimulatedDynamoWorker(
            rank, seed, buffer, event -> follower.onMessage(DynamoEventCodec.encode(event)));
    workers.put(rank, worker);
    return worker;
  }

  private SimulatedDynamoWorker jsonWorker(long seed, int buffer) {
    return jsonWorker(RANK, seed, buffer);
  }

  private static ConditionFactory await() {
    return Awaitility.await().atMost(Duration.ofSeconds(20));
  }

  /** Waits until the index holds {@code rank}'s worker's cache and the rank is followed. */
  private void awaitConverged(WorkerRank rank) {
    await()
        .untilAsserted(
            () -> {
              follower.sync().join();
              assertThat(blocksOf(rank)).isEqualTo(workers.get(rank).blocks());
              assertThat(follower.feed(rank).state()).isEqualTo(KvEventFeed.FOLLOWING);
            });
    assertThat(index.stats().rejected()).as("nothing the router rejected").isZero();
  }

  private void awaitConverged() {
    awaitConverged(RANK);
  }

  /** The blocks the index holds for {@code rank}. */
  private Set<List<Long>> blocksOf(WorkerRank rank) {
    index.flush().toCompletableFuture().join();
    Map<Long, Long> blocks = new HashMap<>();
    index.dump().toCompletableFuture().join().stream()
        .filter(e -> e.worker().equals(rank))
        .forEach(e -> DynamoWorkload.replay(blocks, e.event()));
    return DynamoWorkload.blocksOf(blocks);
  }

  private KvEventFeed feed() {
    return follower.feed(RANK);
  }

  private double counter(String name) {
    return meters.get(name).tag("worker_id", "7").tag("dp_rank", "0").functionCounter().count();
  }

  @Test
  void jsonEvents_areFollowedFromTheWorkersFirstEvent_andCountedPerRank() {
    assertThat(feed()).isEqualTo(new KvEventFeed(KvEventFeed.UNSYNCED, -1, 0, 0, 0, 0, -1));
    SimulatedDynamoWorker worker = jsonWorker(1, 1024);
    worker.steps(300);
    awaitConverged();
    clock.advance(Duration.ofMillis(1500));

    assertThat(feed().lastSeq()).isEqualTo(worker.newestEventId());
    assertThat(feed().batches()).isEqualTo(worker.newestEventId() + 1);
    assertThat(feed().resets()).isZero();
    assertThat(feed().millisSinceLastBatch()).as("read from the ticker").isEqualTo(1500);
    assertThat(counter(MetricNames.KV_EVENT_BATCHES)).isEqualTo(feed().batches());
    assertThat(queries).as("nothing to ask").hasValue(0);
  }

  @Test
  void msgpackBatches_areApplied_gapsFetchedFromTheWorker_andMalformedPayloadsCounted() {
    List<DynamoRouterEvent> batch = new ArrayList<>();
    SimulatedDynamoWorker worker =
        new SimulatedDynamoWorker(
            21,
            1024,
            event -> {
              batch.add(event); // Dynamo's ZMQ plane sends them four at a time
              if (batch.size() == 4) {
                follower.onMsgpack(DynamoMsgpackCodec.encodeBatch(batch));
                batch.clear();
              }
            });
    workers.put(RANK, worker);
    SplittableRandom random = new SplittableRandom(21);
    worker.lose = id -> id > 0 && random.nextDouble() < 0.05;
    worker.steps(300);
    worker.lose = id -> false;
    worker.events(8); // batches after the last lost event reveal it
    follower.onMsgpack(DynamoMsgpackCodec.encodeBatch(batch)); // the last, maybe shorter, batch

    follower.onMsgpack(new byte[] {(byte) 0x91, (byte) 0xc1}); // a list holding a reserved byte
    follower.onMessage("{\"worker_id\":\"seven\"}".getBytes(StandardCharsets.UTF_8));
    follower.onMessage(new byte[0]);

    awaitConverged();
    assertThat(feed().gaps()).isPositive();
    assertThat(counter(MetricNames.KV_EVENT_GAPS)).isEqualTo(feed().gaps());
    assertThat(meters.get(MetricNames.KV_EVENT_MALFORMED).tag("format", "dynamo").counter().count())
        .isEqualTo(3);
  }

  @Test
  void envelopes_areApplied_andTheirPublisherNamesWhereTheRankIsAsked() {
    long firstPublisher = 0x1f_ffff_ffff_ffffL;
    AtomicLong publisher = new AtomicLong(firstPublisher);
    AtomicLong sequence = new AtomicLong();
    SimulatedDynamoWorker worker =
        new SimulatedDynamoWorker(
            9,
            1024,
            event ->
                follower.onEnvelope(
                    new EventEnvelope(
                        publisher.get(),
                        sequence.getAndIncrement(),
                        0,
                        DynamoMsgpackCodec.KV_EVENTS_TOPIC,
                        DynamoMsgpackCodec.encodeBatch(List.of(event)))));
    workers.put(RANK, worker);
    follower.follow(RANK); // before any envelope: asked at the rank's old endpoint
    awaitConverged();
    assertThat(askedPublishers).containsExactly(-1L);

    worker.steps(50);
    long lost = worker.newestEventId() + 1;
    worker.lose = id -> id == lost;
    worker.steps(50);
    awaitConverged();
    assertThat(feed().gaps()).isPositive();
    assertThat(askedPublishers.subList(1, askedPublishers.size()))
        .as("every question after the first envelope names its publisher")
        .isNotEmpty()
        .containsOnly(firstPublisher);

    publisher.set(42); // a new publisher carries the rank's events from now on
    askedPublishers.clear();
    long lostToo = worker.newestEventId() + 1;
    worker.lose = id -> id == lostToo;
    worker.steps(50);
    awaitConverged();
    assertThat(askedPublishers).isNotEmpty().containsOnly(42L);
  }

  @Test
  void follow_asksAQuietWorkerForItsState_andResyncAll_asksEveryRankAgain() {
    WorkerRank second = new WorkerRank("7", 1);
    for (WorkerRank rank : List.of(RANK, second)) {
      SimulatedDynamoWorker worker = jsonWorker(rank, 5 + rank.dpRank(), 16);
      worker.lose = id -> true; // the router was not there
      worker.steps(200);
      follower.follow(rank);
    }
    awaitConverged(RANK);
    awaitConverged(second);

    follower.resyncAll();
    await().until(() -> follower.feed(RANK).resets() == 2 && follower.feed(second).resets() == 2);
    awaitConverged(RANK);
    awaitConverged(second);
  }

  @Test
  void aQuietRank_isProbed_onceTheClockPassesTheProbeInterval() {
    SimulatedDynamoWorker worker = jsonWorker(12, 1024);
    worker.events(50);
    long arrived = worker.newestEventId();
    worker.lose = id -> true; // the tail never arrives, and nothing follows it
    worker.events(3);
    await().until(() -> feed().lastSeq() == arrived);
    assertThat(queries).as("no probe while the clock stands still").hasValue(0);

    clock.advance(PROBE.plusNanos(1));
    awaitConverged();
    assertThat(feed().lastSeq()).isEqualTo(worker.newestEventId());
    assertThat(queries).hasValue(1);
  }

  @Test
  void aFailedQuestion_isAskedAgain_onceTheClockReachesItsRetry() {
    SimulatedDynamoWorker worker = jsonWorker(8, 8);
    worker.lose = id -> true;
    worker.steps(100);
    failNext.set(2); // thrown by the client, then failed as a future

    follower.follow(RANK);
    await().until(() -> feed().incompleteReplays() == 1);
    assertThat(feed().state()).isEqualTo(KvEventFeed.STALE);
    clock.advance(DynamoEventSequencer.FIRST_RETRY);
    await().until(() -> feed().incompleteReplays() == 2);
    clock.advance(DynamoEventSequencer.FIRST_RETRY.multipliedBy(2));

    awaitConverged();
    assertThat(queries).hasValue(3);
  }

  private long asked(WorkerRank rank) {
    return askedRanks.stream().filter(rank::equals).count();
  }

  @Test
  void forget_stopsAskingADepartedWorker_dropsItsEvents_untilItIsFollowedAgain() {
    WorkerRank staying = new WorkerRank("8", 0);
    SimulatedDynamoWorker departing = jsonWorker(RANK, 3, 16);
    SimulatedDynamoWorker stays = jsonWorker(staying, 4, 16);
    departing.steps(100);
    stays.steps(100);
    follower.follow(RANK);
    follower.follow(staying);
    awaitConverged(RANK);
    awaitConverged(staying);

    follower.forget("7");
    index.removeWorker("7"); // the router's part
    follower.sync().join();
    long askedBefore = asked(RANK);
    long stayingBefore = asked(staying);
    // both ranks are quiet: once the clock passes the probe interval, every followed rank is asked
    clock.advance(PROBE.multipliedBy(3));
    await().until(() -> asked(staying) > stayingBefore);
    follower.sync().join();
    assertThat(asked(RANK)).as("no question for a worker that left").isEqualTo(askedBefore);

    departing.steps(50); // a worker that left discovery but runs on, on a shared subject
    follower.sync().join();
    assertThat(blocksOf(RANK)).isEmpty();
    assertThat(follower.feed(RANK))
        .isEqualTo(new KvEventFeed(KvEventFeed.UNSYNCED, -1, 0, 0, 0, 0, -1));
    assertThat(
            meters
                .get(MetricNames.EVENTS_DROPPED)
                .tag("reason", MetricNames.REASON_DEPARTED_WORKER)
                .counter()
                .count())
        .isPositive();
    assertThat(meters.find(MetricNames.KV_EVENT_BATCHES).tag("worker_id", "7").functionCounter())
        .as("its meters go with it")
        .isNull();

    follower.follow(RANK); // it joins again
    awaitConverged(RANK);
    departing.steps(50);
    awaitConverged(RANK);
  }

  @Test
  void aFollowerOfSomeWorkers_dropsTheOthersEvents_keepingNoRankForThem() {
    KvIndexer own = KvIndexer.create(1, null);
    SimpleMeterRegistry ownMeters = new SimpleMeterRegistry();
    DynamoEventFollower members =
        new DynamoEventFollower(
            own, this::query, false, PROBE, ownMeters, clock, workerId -> workerId.equals("7"));
    try {
      WorkerRank other = new WorkerRank("8", 0);
      SimulatedDynamoWorker mine =
          new SimulatedDynamoWorker(
              RANK, 5, 16, event -> members.onMessage(DynamoEventCodec.encode(event)));
      SimulatedDynamoWorker theirs =
          new SimulatedDynamoWorker(
              other, 6, 16, event -> members.onMessage(DynamoEventCodec.encode(event)));
      workers.put(RANK, mine);
      workers.put(other, theirs);
      members.follow(RANK);
      mine.steps(50);
      theirs.steps(50);
      await()
          .untilAsserted(
              () -> {
                members.sync().join();
                assertThat(members.feed(RANK).state()).isEqualTo(KvEventFeed.FOLLOWING);
              });
      members.sync().join();
      own.flush().toCompletableFuture().join();
      assertThat(own.dump().toCompletableFuture().join())
          .extracting(e -> e.worker().workerId())
          .containsOnly("7");
      assertThat(members.feed(other).state()).isEqualTo(KvEventFeed.UNSYNCED);
      assertThat(askedRanks).doesNotContain(other);
      assertThat(
              ownMeters
                  .get(MetricNames.EVENTS_DROPPED)
                  .tag("reason", MetricNames.REASON_OTHER_WORKER)
                  .counter()
                  .count())
          .isPositive();
    } finally {
      members.close();
      own.close();
    }
  }
}
