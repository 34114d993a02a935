package io.kvrouter.routing;

import static io.kvrouter.testing.CollectingSubscriber.drain;
import static io.kvrouter.testing.Futures.failure;
import static io.kvrouter.testing.Futures.result;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.KvRouterConfig;
import io.kvrouter.config.RouterMode;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.AllWorkersBusyException;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.RequestCancelledException;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.RouteExplanation;
import io.kvrouter.protocol.WorkerCost;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerLoadReport;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.WorkerStatus;
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.testing.CollectingSubscriber;
import io.kvrouter.testing.FakeRequestPlane;
import io.kvrouter.testing.FakeRequestPlane.Behaviour;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code --router-mode kv} over scripted workers: affinity, booking, busy, explain, metrics. */
class KvRouterTest {
  private static final int BLOCK_SIZE = 16;

  private final Vertx vertx = Vertx.vertx();
  private final FakeRequestPlane plane = new FakeRequestPlane();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private Router router;

  @AfterEach
  void close() {
    if (router != null) {
      router.close();
    }
    vertx.close();
  }

  private Router kvRouter(int workers, KvRouterConfig config) {
    return kvRouter(workers, config, 1000);
  }

  private Router kvRouter(int workers, KvRouterConfig config, long declaredKvBlocks) {
    return kvRouter(workers, config, declaredKvBlocks, 1);
  }

  private Router kvRouter(int workers, KvRouterConfig config, long declaredKvBlocks, int dpSize) {
    return kvRouter(RouterMode.KV, workers, config, declaredKvBlocks, dpSize);
  }

  private Router kvRouter(
      RouterMode mode, int workers, KvRouterConfig config, long declaredKvBlocks, int dpSize) {
    List<RouteTarget> targets =
        IntStream.rangeClosed(1, workers)
            .mapToObj(
                i ->
                    new RouteTarget(
                        new WorkerEndpoint("w" + i, "127.0.0.1", 9000 + i, "generate"),
                        declaredKvBlocks,
                        dpSize))
            .toList();
    router =
        Routers.create(
            mode,
            config,
            BLOCK_SIZE,
            targets,
            plane,
            Duration.ofSeconds(120),
            Migration.OFF,
            vertx,
            meters);
    return router;
  }

  /** {@code length} tokens drawn from {@code seed}. */
  private static int[] tokens(int seed, int length) {
    SplittableRandom random = new SplittableRandom(seed);
    return IntStream.range(0, length).map(i -> random.nextInt(1, 50_000)).toArray();
  }

  private static int[] concat(int[] a, int[] b) {
    int[] out = new int[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static PreprocessedRequest request(int[] tokens) {
    return new PreprocessedRequest("m", tokens, null, null, null, null, null);
  }

  /** Routes {@code tokens} to completion, then waits until the index has learned them. */
  private String route(String requestId, int[] tokens) throws Exception {
    assertThat(drain(result(router.generate(requestId, request(tokens)))).done.get()).isNull();
    String worker = plane.workerOf.get(requestId);
    int blocks = tokens.length / BLOCK_SIZE;
    Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> overlapOf(router.explain(request(tokens)).orElseThrow(), worker) == blocks);
    return worker;
  }

  /** The most blocks any data-parallel rank of {@code workerId} caches; -1 if it has none. */
  private static int overlapOf(RouteExplanation explanation, String workerId) {
    return explanation.workers().stream()
        .filter(c -> c.worker().workerId().equals(workerId))
        .mapToInt(WorkerCost::overlapBlocks)
        .max()
        .orElse(-1);
  }

  private WorkerStatus.KvView kv(String workerId) {
    return router.workers().stream()
        .filter(w -> w.id().equals(workerId))
        .findFirst()
        .orElseThrow()
        .kv()
        .orElseThrow();
  }

  @Test
  void promptsSharingALongPrefix_landOnOneWorker_unrelatedPromptsSpread() throws Exception {
    kvRouter(4, KvRouterConfig.APPROXIMATE);
    Set<String> unrelated = new HashSet<>();
    for (int i = 0; i < 4; i++) {
      unrelated.add(route("u" + i, tokens(100 + i, 1000)));
    }
    int[] prefix = tokens(1, 1000);
    Set<String> shared = new HashSet<>();
    for (int i = 0; i < 8; i++) {
      shared.add(route("s" + i, concat(prefix, tokens(200 + i, 48))));
    }

    assertThat(unrelated).containsExactlyInAnyOrder("w1", "w2", "w3", "w4");
    assertThat(shared).hasSize(1);
  }

  @Test
  void aRequestHoldsItsBlocksAndPrefillUntilFirstTokenAndEnd() throws Exception {
    plane.set("w1", Behaviour.HOLD);
    kvRouter(1, KvRouterConfig.APPROXIMATE);
    int[] prompt = tokens(7, 100); // 6 complete blocks and 4 tokens

    CollectingSubscriber subscriber = new CollectingSubscriber();
    result(router.generate("r1", request(prompt))).subscribe(subscriber);

    assertThat(kv("w1").activeBlocks()).isEqualTo(6);
    assertThat(kv("w1").activePrefillTokens()).isEqualTo(100);
    plane.held.get("r1").output();
    assertThat(kv("w1").activeBlocks()).isEqualTo(6);
    assertThat(kv("w1").activePrefillTokens()).isZero();
    plane.held.get("r1").complete();
    assertThat(subscriber.done.get(5, TimeUnit.SECONDS)).isNull();
    assertThat(kv("w1").activeBlocks()).isZero();
    assertThat(kv("w1").activePrefillTokens()).isZero();
    assertThat(kv("w1").totalKvBlocks()).isEqualTo(1000);
  }

  @Test
  void cancellingARequest_freesItsBooking() throws Exception {
    plane.set("w1", Behaviour.HOLD);
    kvRouter(1, KvRouterConfig.APPROXIMATE);
    ResponseStream stream = result(router.generate("r1", request(tokens(7, 64))));
    CollectingSubscriber subscriber = new CollectingSubscriber();
    stream.subscribe(subscriber);
    assertThat(kv("w1").activeBlocks()).isEqualTo(4);

    stream.cancel();

    assertThat(subscriber.done.get(5, TimeUnit.SECONDS))
        .isInstanceOf(RequestCancelledException.class);
    assertThat(kv("w1").activeBlocks()).isZero();
    assertThat(router.workers().get(0).activeRequests()).isZero();
  }

  @Test
  void busyWorkersAreSkipped_andWhenAllAreBusyTheRequestFails() throws Exception {
    plane.set("w1", Behaviour.HOLD).set("w2", Behaviour.HOLD);
    kvRouter(
        2,
        KvRouterConfig.APPROXIMATE.withBusyThresholds(OptionalDouble.empty(), OptionalLong.of(50)));

    result(router.generate("r1", request(tokens(1, 100)))).subscribe(new CollectingSubscriber());
    result(router.generate("r2", request(tokens(1, 100)))).subscribe(new CollectingSubscriber());
    Throwable third = failure(router.generate("r3", request(tokens(3, 100))));

    assertThat(plane.workerOf).containsEntry("r1", "w1").containsEntry("r2", "w2");
    assertThat(third).isInstanceOf(AllWorkersBusyException.class).hasMessageContaining("busy");
    assertThat(plane.workerOf).doesNotContainKey("r3");
    assertThat(meters.get(MetricNames.ROUTING_DECISIONS).tag("outcome", "busy").counter().count())
        .isEqualTo(1);

    plane.held.get("r1").output(); // w1's prefill is done: it is no longer busy
    result(router.generate("r4", request(tokens(4, 100)))).subscribe(new CollectingSubscriber());
    assertThat(plane.workerOf).containsEntry("r4", "w1");
  }

  @Test
  void decodeBlocksThreshold_usesTheWorkersDeclaredCapacity() throws Exception {
    plane.set("w1", Behaviour.HOLD);
    kvRouter(
        1,
        KvRouterConfig.APPROXIMATE.withBusyThresholds(
            OptionalDouble.of(0.01), OptionalLong.empty()));
    // 1% of 1000 blocks is 10; 11 active blocks make the worker busy
    result(router.generate("r1", request(tokens(1, 11 * BLOCK_SIZE))))
        .subscribe(new CollectingSubscriber());

    assertThat(failure(router.generate("r2", request(tokens(2, 16)))))
        .isInstanceOf(AllWorkersBusyException.class);
  }

  @Test
  void dataParallelRanks_areRoutedToEachOnItsOwn_andTheWorkerIsToldWhich() throws Exception {
    kvRouter(1, KvRouterConfig.APPROXIMATE, 1000, 4);
    int[] shared = tokens(7, 1000);
    Set<Integer> ranksOfUnrelated = new HashSet<>();
    for (int i = 0; i < 4; i++) {
      route("u" + i, tokens(100 + i, 160));
      ranksOfUnrelated.add(plane.requestOf.get("u" + i).dpRank().orElseThrow());
    }
    assertThat(ranksOfUnrelated).as("unrelated prompts spread over the ranks").hasSize(4);

    Set<Integer> ranksOfShared = new HashSet<>();
    for (int i = 0; i < 6; i++) {
      route("s" + i, concat(shared, tokens(200 + i, 32)));
      ranksOfShared.add(plane.requestOf.get("s" + i).dpRank().orElseThrow());
    }
    assertThat(ranksOfShared).as("a shared prefix stays on the rank that caches it").hasSize(1);
    RouteExplanation explanation = router.explain(request(shared)).orElseThrow();
    assertThat(explanation.workers())
        .extracting(c -> c.worker().dpRank())
        .containsExactlyInAnyOrder(0, 1, 2, 3);
    assertThat(kv("w1").totalKvBlocks()).as("four ranks of 1000 blocks").isEqualTo(4000);
  }

  @Test
  void aWorkerWithoutDataParallelism_isNotToldARank() throws Exception {
    kvRouter(2, KvRouterConfig.APPROXIMATE);
    route("r1", tokens(1, 64));
    assertThat(plane.requestOf.get("r1").routing()).isNull();
  }

  @Test
  void theWorkersLoadReports_giveItsCapacity_andMakeItBusy() throws Exception {
    kvRouter(
        2,
        KvRouterConfig.APPROXIMATE.withBusyThresholds(OptionalDouble.of(0.5), OptionalLong.empty()),
        0);
    router.reportLoad(new WorkerLoadReport(WorkerRank.of("w1"), 80, -1, 80, 100, 0, 3));
    router.reportLoad(new WorkerLoadReport(WorkerRank.of("w2"), 10, -1, 10, 100, 0, 1));
    router.reportLoad(new WorkerLoadReport(WorkerRank.of("w9"), 99, -1, 99, 100, 0, 1));

    for (int i = 0; i < 4; i++) {
      assertThat(route("r" + i, tokens(1, 64))).isEqualTo("w2");
    }
    assertThat(kv("w1").totalKvBlocks()).as("capacity from the report").isEqualTo(100);
    WorkerStatus w1 =
        router.workers().stream().filter(w -> w.id().equals("w1")).findFirst().orElseThrow();
    assertThat(w1.reportedLoad())
        .get()
        .satisfies(l -> assertThat(l.report().kvUsedBlocks()).isEqualTo(80));

    router.reportLoad(new WorkerLoadReport(WorkerRank.of("w1"), 5, -1, 5, 100, 0, 0));
    router.reportLoad(new WorkerLoadReport(WorkerRank.of("w2"), 90, -1, 90, 100, 0, 9));
    assertThat(route("r9", tokens(2, 64))).isEqualTo("w1");
  }

  @Test
  void explain_showsEveryCostAndTheChoice_andBooksNothing() throws Exception {
    kvRouter(2, KvRouterConfig.APPROXIMATE);
    int[] prompt = tokens(5, 160); // 10 blocks
    String first = route("r1", prompt);
    int sendsBefore = plane.sends.size();

    RouteExplanation explanation =
        router.explain(request(concat(prompt, tokens(6, 40)))).orElseThrow();

    assertThat(explanation.inputTokens()).isEqualTo(200);
    assertThat(explanation.blockSize()).isEqualTo(BLOCK_SIZE);
    assertThat(explanation.requestBlocks()).isEqualTo(12);
    assertThat(explanation.chosen()).contains(WorkerRank.of(first));
    WorkerCost chosen =
        explanation.workers().stream()
            .filter(c -> c.worker().workerId().equals(first))
            .findFirst()
            .orElseThrow();
    assertThat(chosen.overlapBlocks()).isEqualTo(10);
    assertThat(chosen.newPrefillTokens()).isEqualTo(40);
    assertThat(chosen.cost()).isEqualTo(40.0 / BLOCK_SIZE + 12);
    assertThat(explanation.workers()).hasSize(2).noneMatch(WorkerCost::busy);
    assertThat(plane.sends).hasSize(sendsBefore);
    assertThat(router.workers()).allMatch(w -> w.kv().orElseThrow().activeBlocks() == 0);
  }

  @Test
  void explain_isEmptyInModesWithoutCosts() {
    router =
        Routers.create(
            RouterMode.ROUND_ROBIN,
            KvRouterConfig.APPROXIMATE,
            BLOCK_SIZE,
            List.of(RouteTarget.of(new WorkerEndpoint("w1", "127.0.0.1", 9001, "generate"))),
            plane,
            Duration.ofSeconds(120),
            Migration.OFF,
            vertx,
            meters);
    assertThat(router.explain(request(tokens(1, 32)))).isEmpty();
    assertThat(router.workers().get(0).kv()).isEmpty();
  }

  @Test
  void aWorkerThatDies_losesWhatItCached_andTheRequestMovesOn() throws Exception {
    kvRouter(2, KvRouterConfig.APPROXIMATE);
    int[] prompt = tokens(9, 320);
    assertThat(route("r1", prompt)).isEqualTo("w1");
    assertThat(kv("w1").cachedBlocks()).isEqualTo(20);

    plane.set("w1", Behaviour.DIE_BEFORE_OUTPUT);
    CollectingSubscriber result = drain(result(router.generate("r2", request(prompt))));

    assertThat(result.done.get()).isNull();
    assertThat(plane.sends).containsExactly("w1", "w1", "w2");
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> kv("w1").cachedBlocks() == 0);
    assertThat(kv("w1").activeBlocks()).isZero();
    assertThat(kv("w2").activeBlocks()).isZero();
  }

  @Test
  void aRefusedSend_releasesItsBooking() throws Exception {
    plane.set("w1", Behaviour.REFUSE).set("w2", Behaviour.HOLD);
    kvRouter(2, KvRouterConfig.APPROXIMATE);

    result(router.generate("r1", request(tokens(3, 96)))).subscribe(new CollectingSubscriber());

    assertThat(plane.sends).containsExactly("w1", "w2");
    assertThat(kv("w1").activeBlocks()).isZero();
    assertThat(kv("w2").activeBlocks()).isEqualTo(6);
    assertThat(router.workers()).extracting(WorkerStatus::activeRequests).containsExactly(0, 1);
  }

  @Test
  void learnedBlocksAreForgottenAfterTheTtl() throws Exception {
    KvRouterConfig shortTtl =
        new KvRouterConfig(
            false,
            1.0,
            0.0,
            OptionalDouble.empty(),
            OptionalLong.empty(),
            Duration.ofMillis(200),
            1 << 20,
            0.8);
    kvRouter(1, shortTtl);
    route("r1", tokens(1, 64));
    assertThat(kv("w1").cachedBlocks()).isEqualTo(4);

    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> kv("w1").cachedBlocks() == 0);
  }

  @Test
  void approxMode_learnsFromItsOwnDecisions_whateverKvEventsSays() throws Exception {
    kvRouter(RouterMode.APPROX, 2, KvRouterConfig.DEFAULTS, 1000, 1);
    assertThat(router.kvEventSink()).as("no KV events followed").isEmpty();
    int[] prompt = tokens(3, 160);

    String first = route("r1", prompt); // returns once the router has learned r1's blocks
    assertThat(route("r2", concat(prompt, tokens(4, 32)))).isEqualTo(first);
    assertThat(kv(first).cachedBlocks()).isEqualTo(12);
    assertThat(router.dumpKvIndex()).isPresent();
    assertThat(
            meters
                .get(MetricNames.ROUTING_DECISIONS)
                .tags("router_mode", "approx", "outcome", "routed")
                .counter()
                .count())
        .isEqualTo(2);
    assertThat(meters.get(MetricNames.ROUTER_OVERLAP_BLOCKS).summary().count()).isEqualTo(2);
  }

  @Test
  void approxMode_predictsOverlapOnlyWithinACacheNamespace_andForwardsIt() throws Exception {
    kvRouter(RouterMode.APPROX, 2, KvRouterConfig.DEFAULTS, 1000, 1);
    int[] prompt = tokens(6, 160);
    PreprocessedRequest tenantA = request(prompt).withCacheSalt("tenant-a");
    assertThat(drain(result(router.generate("a1", tenantA))).done.get()).isNull();
    String worker = plane.workerOf.get("a1");
    assertThat(plane.requestOf.get("a1").cacheSalt()).as("forwarded").contains("tenant-a");
    Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> overlapOf(router.explain(tenantA).orElseThrow(), worker) == 10);

    assertThat(overlapOf(router.explain(request(prompt)).orElseThrow(), worker))
        .as("unsalted")
        .isZero();
    assertThat(
            overlapOf(
                router.explain(request(prompt).withCacheSalt("tenant-b")).orElseThrow(), worker))
        .as("another tenant")
        .isZero();
    // the learned blocks are the salted hashes of the prompt
    long[] salted = BlockHasher.of(BLOCK_SIZE, null, "tenant-a").localHashes(prompt);
    assertThat(router.dumpKvIndex().orElseThrow().toCompletableFuture().get())
        .flatExtracting(
            e ->
                e.event() instanceof KvCacheEvent.Stored stored
                    ? stored.blocks().stream().map(KvCacheEvent.StoredBlock::tokensHash).toList()
                    : List.of())
        .contains(salted[0], salted[9]);
  }

  @Test
  void kvModeWithKvEvents_routesByTheEventsTheSinkIsGiven() throws Exception {
    kvRouter(2, KvRouterConfig.DEFAULTS);
    int[] prompt = tokens(5, 64);
    long[] local = BlockHasher.of(BLOCK_SIZE).localHashes(prompt);
    long[] sequence = BlockHasher.chain(local);
    List<KvCacheEvent.StoredBlock> blocks = new ArrayList<>();
    for (int i = 0; i < local.length; i++) {
      blocks.add(new KvCacheEvent.StoredBlock(sequence[i], local[i]));
    }
    router
        .kvEventSink()
        .orElseThrow()
        .apply(WorkerRank.of("w2"), new KvCacheEvent.Stored(null, blocks));

    Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> overlapOf(router.explain(request(prompt)).orElseThrow(), "w2") == 4);

    assertThat(drain(result(router.generate("r1", request(prompt)))).done.get()).isNull();
    assertThat(plane.workerOf).containsEntry("r1", "w2");
  }

  @Test
  void routedRequestsAreMeasured() throws Exception {
    kvRouter(2, KvRouterConfig.APPROXIMATE);
    int[] prompt = tokens(2, 64);
    route("r1", prompt);
    route("r2", prompt);

    assertThat(
            meters
                .get(MetricNames.ROUTING_DECISIONS)
                .tags("router_mode", "kv", "outcome", "routed")
                .counter()
                .count())
        .isEqualTo(2);
    assertThat(meters.get(MetricNames.ROUTER_OVERLAP_BLOCKS).summary().count()).isEqualTo(2);
    assertThat(meters.get(MetricNames.ROUTER_OVERLAP_BLOCKS).summary().max()).isEqualTo(4);
    assertThat(meters.get(MetricNames.ROUTER_KV_HIT_RATE).summary().totalAmount()).isEqualTo(1.0);
    assertThat(
            meters
                .get(MetricNames.WORKER_ACTIVE_DECODE_BLOCKS)
                .tags("worker_id", "w2", "dp_rank", "0", "worker_type", "decode")
                .gauge()
                .value())
        .isZero();
    List<String> applied = new ArrayList<>();
    meters
        .find(MetricNames.KV_CACHE_EVENTS_APPLIED)
        .functionCounters()
        .forEach(c -> applied.add(c.getId().getTag("event_type") + "=" + c.count()));
    assertThat(applied).contains("stored=2.0");
  }
}
