package io.kvrouter.routing;

import static io.kvrouter.testing.CollectingSubscriber.drain;
import static io.kvrouter.testing.Futures.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.config.KvRouterConfig;
import io.kvrouter.config.RouterMode;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerCost;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.WorkerStatus;
import io.kvrouter.protocol.WorkerStreamException;
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.routing.index.KvEventSink;
import io.kvrouter.testing.CollectingSubscriber;
import io.kvrouter.testing.FakeRequestPlane;
import io.kvrouter.testing.FakeRequestPlane.Behaviour;
import io.kvrouter.testing.ManualTicker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Workers joining and leaving a running router ({@link Router#addWorker}, {@link
 * Router#removeWorker}) in every router mode: a joined worker is routed to at once, a removed one
 * never again, with its index entries, books and meters gone, while its streams still running
 * finish or fail over as on any worker; the same id may join again.
 */
class WorkerSetChangesTest {
  private static final int BLOCK_SIZE = 16;

  private final Vertx vertx = Vertx.vertx();
  private final FakeRequestPlane plane = new FakeRequestPlane();
  private final ManualTicker ticker = new ManualTicker();
  private final StalledStreams stalledStreams = new StalledStreams(Duration.ofSeconds(120), ticker);
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private RoutingPolicy policy;
  private Router router;

  @AfterEach
  void close() {
    if (router != null) {
      router.close();
    }
    vertx.close();
  }

  private static RouteTarget target(String id, int dpSize) {
    return new RouteTarget(new WorkerEndpoint(id, "127.0.0.1", 9000, "generate"), 1000, dpSize);
  }

  /** A router in {@code mode} over {@code ids}, through {@code policy} (null: the mode's own). */
  private Router router(RouterMode mode, RoutingPolicy wrapped, String... ids) {
    policy =
        wrapped != null
            ? wrapped
            : Routers.policy(mode, KvRouterConfig.DEFAULTS, BLOCK_SIZE, vertx, meters);
    List<WorkerState> states = new ArrayList<>();
    for (String id : ids) {
      states.add(new WorkerState(target(id, 1), ticker));
    }
    router =
        new PushRouter(
            states,
            plane,
            policy,
            BlockHasher.of(BLOCK_SIZE),
            new HealthProber(vertx, plane, meters),
            stalledStreams,
            new Migration(1, "m"),
            meters);
    return router;
  }

  private Router router(RouterMode mode, String... ids) {
    return router(mode, null, ids);
  }

  private static PreprocessedRequest request(int[] tokens) {
    return new PreprocessedRequest("m", tokens, null, null, null, null, null);
  }

  private static final PreprocessedRequest REQUEST = request(new int[] {1, 2, 3});

  /** Routes {@code n} requests named {@code prefix}0.. and waits for each to end. */
  private void route(String prefix, int n) throws Exception {
    for (int i = 0; i < n; i++) {
      drain(result(router.generate(prefix + i, REQUEST)));
    }
  }

  private List<String> statusIds() {
    return router.workers().stream().map(WorkerStatus::id).toList();
  }

  /** The worker ranks with blocks in the KV index, after every event given before. */
  private Set<WorkerRank> indexedRanks() throws Exception {
    List<RouterEvent> dump =
        router.dumpKvIndex().orElseThrow().toCompletableFuture().get(10, TimeUnit.SECONDS);
    return dump.stream()
        .filter(e -> e.event() instanceof KvCacheEvent.Stored)
        .map(RouterEvent::worker)
        .collect(Collectors.toSet());
  }

  /** Stores the prompt {@code tokens}' blocks on {@code rank} through the router's sink. */
  private void cache(WorkerRank rank, int[] tokens) {
    long[] local = BlockHasher.of(BLOCK_SIZE).localHashes(tokens);
    long[] sequence = BlockHasher.chain(local);
    List<KvCacheEvent.StoredBlock> blocks = new ArrayList<>();
    for (int i = 0; i < local.length; i++) {
      blocks.add(new KvCacheEvent.StoredBlock(sequence[i], local[i]));
    }
    KvEventSink sink = router.kvEventSink().orElseThrow();
    sink.apply(rank, new KvCacheEvent.Stored(null, blocks));
  }

  private static int[] tokens(int first, int length) {
    return IntStream.range(first, first + length).toArray();
  }

  @Test
  void aJoinedWorker_isRoutedToAtOnce_andProbedOnceTheRouterHasStarted() throws Exception {
    router(RouterMode.ROUND_ROBIN, "w1");
    result(router.start());

    router.addWorker(target("w2", 1));
    route("r", 4);

    assertThat(plane.sends).containsExactly("w1", "w2", "w1", "w2");
    assertThat(statusIds()).containsExactly("w1", "w2");
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> plane.probes.contains("w2"));
    assertThatThrownBy(() -> router.addWorker(target("w2", 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("w2");
  }

  /** Sends {@code n} requests named {@code prefix}0.., each a prompt of its own, held open. */
  private void hold(String prefix, int n) throws Exception {
    for (int i = 0; i < n; i++) {
      result(router.generate(prefix + i, request(tokens(plane.sends.size() * 1000, 40))))
          .subscribe(new CollectingSubscriber());
    }
  }

  @ParameterizedTest
  @EnumSource(RouterMode.class)
  void aRemovedWorker_isNeverChosenAgain_andLeavesTheStatusAndTheBooks(RouterMode mode)
      throws Exception {
    plane.set("w1", Behaviour.HOLD).set("w2", Behaviour.HOLD).set("w3", Behaviour.HOLD);
    router(mode, "w1", "w2", "w3");
    hold("a", 30);
    assertThat(plane.sends).as("every worker takes requests").contains("w1", "w2", "w3");

    assertThat(router.removeWorker("w2")).isTrue();
    assertThat(router.removeWorker("w2")).as("already gone").isFalse();
    plane.sends.clear();
    hold("b", 30);

    assertThat(plane.sends).hasSize(30).doesNotContain("w2");
    assertThat(statusIds()).containsExactly("w1", "w3");
    plane.held.values().forEach(FakeRequestPlane.Held::complete);
    assertThat(LivePolicyConcurrencyTest.requestsInFlight(policy)).isZero();
  }

  @Test
  void kvMode_aRemovedWorkersRanksLeaveTheIndex_andItsLateEventsAreDropped() throws Exception {
    router(RouterMode.KV, "w1");
    router.addWorker(target("w2", 2));
    int[] prompt = tokens(100, 64);
    cache(WorkerRank.of("w1"), prompt);
    cache(new WorkerRank("w2", 0), prompt);
    cache(new WorkerRank("w2", 1), tokens(500, 32));
    assertThat(indexedRanks())
        .containsExactlyInAnyOrder(
            WorkerRank.of("w1"), new WorkerRank("w2", 0), new WorkerRank("w2", 1));
    assertThat(
            meters
                .find(MetricNames.WORKER_ACTIVE_DECODE_BLOCKS)
                .tags("worker_id", "w2", "dp_rank", "1")
                .gauge())
        .as("a joined rank's gauge")
        .isNotNull();

    router.removeWorker("w2");
    // an event the subscriber had in hand when the worker left
    cache(new WorkerRank("w2", 0), tokens(900, 32));

    assertThat(indexedRanks()).containsExactly(WorkerRank.of("w1"));
    assertThat(router.explain(request(prompt)).orElseThrow().workers())
        .extracting(cost -> cost.worker().workerId())
        .containsOnly("w1");
    assertThat(meters.find(MetricNames.WORKER_ACTIVE_DECODE_BLOCKS).tag("worker_id", "w2").gauge())
        .as("the gauges of a worker that left")
        .isNull();
  }

  @Test
  void kvMode_aWorkerThatJoinsAgain_startsFromNothing_andIsRoutedByItsNewEvents() throws Exception {
    router(RouterMode.KV, "w1", "w2");
    int[] prompt = tokens(100, 64);
    cache(WorkerRank.of("w2"), prompt);
    assertThat(indexedRanks()).containsExactly(WorkerRank.of("w2"));

    router.removeWorker("w2");
    router.addWorker(target("w2", 1));

    assertThat(indexedRanks()).as("nothing kept from before").isEmpty();
    assertThat(statusIds()).containsExactly("w1", "w2");
    cache(WorkerRank.of("w2"), prompt);
    assertThat(indexedRanks()).containsExactly(WorkerRank.of("w2"));
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                router.explain(request(prompt)).orElseThrow().workers().stream()
                        .filter(cost -> cost.worker().workerId().equals("w2"))
                        .mapToInt(WorkerCost::overlapBlocks)
                        .max()
                        .orElse(0)
                    == 4);
    drain(result(router.generate("r1", request(prompt))));
    assertThat(plane.workerOf).containsEntry("r1", "w2");
    assertThat(meters.find(MetricNames.WORKER_ACTIVE_DECODE_BLOCKS).tag("worker_id", "w2").gauge())
        .isNotNull();
  }

  @Test
  void aStreamOfARemovedWorker_isNotCut_andMovesOnWhenItBreaks() throws Exception {
    plane.set("w1", Behaviour.HOLD).set("w2", Behaviour.HOLD);
    router(RouterMode.LEAST_LOADED, "w1", "w2");
    CollectingSubscriber subscriber = new CollectingSubscriber();
    result(router.generate("r1", REQUEST)).subscribe(subscriber);
    assertThat(plane.sends).containsExactly("w1");

    router.removeWorker("w1");
    plane.held.get("r1").send(7);
    assertThat(plane.cancels).as("left running").isEmpty();
    assertThat(subscriber.tokens()).containsExactly(7);

    plane.held.get("r1").fail(WorkerStreamException.disconnected("worker gone", null));
    assertThat(plane.sends).as("migrated to the worker left").containsExactly("w1", "w2");
    plane.held.get("r1").answer(8);

    assertThat(subscriber.done.get(10, TimeUnit.SECONDS)).isNull();
    assertThat(subscriber.tokens()).containsExactly(7, 8);
    assertThat(meters.find(MetricNames.WORKER_FAULTS).tag("worker_id", "w1").counter())
        .as("a worker that left is neither blamed nor probed")
        .isNull();
    assertThat(LivePolicyConcurrencyTest.requestsInFlight(policy)).isZero();
  }

  @Test
  void aWorkerLeavingWhileARequestIsRoutedToIt_getsNothing_andTheRequestGoesElsewhere()
      throws Exception {
    RoutingPolicy leastLoaded =
        Routers.policy(RouterMode.LEAST_LOADED, KvRouterConfig.DEFAULTS, BLOCK_SIZE, vertx, meters);
    AtomicBoolean leave = new AtomicBoolean(true);
    // the discovery thread takes the worker out between the policy's choice and the send
    RoutingPolicy leavingOnChoice =
        new RoutingPolicy() {
          @Override
          public RouterMode mode() {
            return leastLoaded.mode();
          }

          @Override
          public <W extends RouteCandidate> Choice<W> choose(Prompt prompt, List<W> candidates) {
            Choice<W> choice = leastLoaded.choose(prompt, candidates);
            if (leave.getAndSet(false)) {
              router.removeWorker(choice.worker().workerId());
            }
            return choice;
          }

          @Override
          public Booking book(String requestId, Prompt prompt, Choice<?> choice) {
            return leastLoaded.book(requestId, prompt, choice);
          }

          @Override
          public void workerLeft(RouteCandidate worker) {
            leastLoaded.workerLeft(worker);
          }
        };
    router(RouterMode.LEAST_LOADED, leavingOnChoice, "w1", "w2");

    drain(result(router.generate("r1", REQUEST)));

    assertThat(plane.sends).containsExactly("w2");
    assertThat(statusIds()).containsExactly("w2");
    assertThat(LivePolicyConcurrencyTest.requestsInFlight(leastLoaded)).isZero();
  }
}
