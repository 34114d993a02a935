package io.kvrouter.routing;

import static io.kvrouter.testing.Futures.result;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.KvRouterConfig;
import io.kvrouter.config.RouterMode;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.PreprocessedRequest.SamplingOptions;
import io.kvrouter.protocol.PreprocessedRequest.StopConditions;
import io.kvrouter.protocol.RequestCancelledException;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerStatus;
import io.kvrouter.protocol.WorkerStreamException;
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.testing.CollectingSubscriber;
import io.kvrouter.testing.FakeRequestPlane;
import io.kvrouter.testing.FakeRequestPlane.Behaviour;
import io.kvrouter.testing.ManualTicker;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code --migration-limit}: a stream that breaks after output continues on another worker with the
 * prompt plus the tokens generated so far, unseen by the caller, up to the limit.
 */
class RequestMigrationTest {
  private static final int BLOCK_SIZE = 16;
  private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(120);
  private static final StopConditions STOP =
      new StopConditions(10, List.of("END"), List.of(99), 4, true);

  private final Vertx vertx = Vertx.vertx();
  private final FakeRequestPlane plane = new FakeRequestPlane();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final ManualTicker ticker = new ManualTicker();
  private final StalledStreams stalledStreams = new StalledStreams(IDLE_TIMEOUT, ticker);
  private Router router;

  @AfterEach
  void close() {
    if (router != null) {
      router.close();
    }
    vertx.close();
  }

  /**
   * A router over workers w1 .. wN that lets each request migrate {@code limit} times; its streams
   * stall only when a test moves {@link #ticker} and sweeps {@link #stalledStreams}.
   */
  private Router router(RouterMode mode, KvRouterConfig kv, int workers, int limit) {
    List<WorkerState> states =
        IntStream.rangeClosed(1, workers)
            .mapToObj(
                i ->
                    new RouteTarget(
                        new WorkerEndpoint("w" + i, "127.0.0.1", 9000 + i, "generate"), 1000, 1))
            .map(target -> new WorkerState(target, ticker))
            .toList();
    router =
        new PushRouter(
            states,
            plane,
            Routers.policy(mode, kv, BLOCK_SIZE, vertx, meters),
            BlockHasher.of(BLOCK_SIZE),
            new HealthProber(vertx, plane, meters),
            stalledStreams,
            new Migration(limit, "m"),
            meters);
    return router;
  }

  private Router roundRobin(int workers, int limit) {
    return router(RouterMode.ROUND_ROBIN, KvRouterConfig.DEFAULTS, workers, limit);
  }

  private static PreprocessedRequest request(int[] prompt, StopConditions stop) {
    return new PreprocessedRequest("m", prompt, stop, null, null, List.of(2), List.of("a"));
  }

  private static final PreprocessedRequest REQUEST = request(new int[] {1, 2, 3}, STOP);

  /** Sends {@code request} as r1 and subscribes a collector. */
  private CollectingSubscriber start(PreprocessedRequest request) throws Exception {
    CollectingSubscriber subscriber = new CollectingSubscriber();
    result(router.generate("r1", request)).subscribe(subscriber);
    return subscriber;
  }

  private static WorkerStreamException broken() {
    return WorkerStreamException.disconnected("connection lost", null);
  }

  private double migrations() {
    Counter counter =
        meters
            .find(MetricNames.MODEL_MIGRATION)
            .tag(MetricNames.TAG_MODEL, "m")
            .tag(MetricNames.TAG_MIGRATION_TYPE, "ongoing_request")
            .counter();
    return counter == null ? 0 : counter.count();
  }

  @Test
  void streamBrokenAfterTokens_continuesOnAnotherWorker_withPromptPlusGenerated() throws Exception {
    plane.set("w1", Behaviour.HOLD).set("w2", Behaviour.HOLD);
    roundRobin(2, 1);
    CollectingSubscriber subscriber = start(REQUEST);
    plane.held.get("r1").send(7, 8);
    plane.held.get("r1").send(9);

    plane.held.get("r1").fail(broken());

    assertThat(subscriber.done).isNotDone();
    assertThat(plane.sends).containsExactly("w1", "w2");
    PreprocessedRequest continued = plane.sentRequests.get(1);
    assertThat(continued.tokenIds()).containsExactly(1, 2, 3, 7, 8, 9);
    assertThat(continued.stopConditions())
        .as("max_tokens and min_tokens lowered by the 3 tokens generated, the rest kept")
        .isEqualTo(new StopConditions(7, List.of("END"), List.of(99), 1, true));
    assertThat(continued.eosTokenIds()).isEqualTo(REQUEST.eosTokenIds());
    assertThat(continued.annotations()).isEqualTo(REQUEST.annotations());
    assertThat(continued.model()).isEqualTo("m");

    plane.held.get("r1").send(20);
    plane.held.get("r1").answer(21);

    assertThat(subscriber.done.get(10, TimeUnit.SECONDS))
        .as("no error reaches the caller")
        .isNull();
    assertThat(subscriber.tokens()).containsExactly(7, 8, 9, 20, 21);
    assertThat(migrations()).isEqualTo(1);
    assertThat(router.workers()).extracting(WorkerStatus::healthy).containsExactly(false, true);
    assertThat(router.workers()).extracting(WorkerStatus::activeRequests).containsExactly(0, 0);
  }

  @Test
  void theLimitCountsMigrations_pastItTheBreakReachesTheCaller() throws Exception {
    plane.set("w1", Behaviour.HOLD).set("w2", Behaviour.HOLD).set("w3", Behaviour.HOLD);
    roundRobin(3, 2);
    CollectingSubscriber subscriber = start(REQUEST);

    for (int round = 1; round <= 3; round++) {
      plane.held.get("r1").send(10 + round);
      plane.held.get("r1").fail(broken());
    }

    assertThat(subscriber.done.get(10, TimeUnit.SECONDS))
        .isInstanceOf(WorkerStreamException.class)
        .hasMessage("connection lost");
    assertThat(plane.sends).hasSize(3).doesNotHaveDuplicates();
    assertThat(plane.sentRequests.get(2).tokenIds()).containsExactly(1, 2, 3, 11, 12);
    assertThat(plane.sentRequests.get(2).stopConditions().maxTokens()).isEqualTo(8);
    assertThat(subscriber.tokens()).containsExactly(11, 12, 13);
    assertThat(migrations()).isEqualTo(2);
    assertThat(router.workers()).extracting(WorkerStatus::activeRequests).containsOnly(0);
  }

  @Test
  void aStalledStream_isCancelledThere_andContinuesOnAnotherWorker() throws Exception {
    plane.set("w1", Behaviour.HOLD).set("w2", Behaviour.HOLD);
    roundRobin(2, 1);
    CollectingSubscriber subscriber = start(REQUEST);
    plane.held.get("r1").send(7);

    ticker.advance(IDLE_TIMEOUT);
    assertThat(stalledStreams.sweep()).isEqualTo(1);

    assertThat(plane.cancels).containsExactly("w1");
    assertThat(plane.sends).containsExactly("w1", "w2");
    assertThat(plane.sentRequests.get(1).tokenIds()).containsExactly(1, 2, 3, 7);
    plane.held.get("r1").answer(8);
    assertThat(subscriber.done.get(10, TimeUnit.SECONDS)).isNull();
    assertThat(subscriber.tokens()).containsExactly(7, 8);
    assertThat(migrations()).isEqualTo(1);
  }

  @Test
  void whenNoOtherWorkerTakesTheRequest_theBreakReachesTheCaller() throws Exception {
    plane.set("w1", Behaviour.HOLD).set("w2", Behaviour.REFUSE);
    roundRobin(2, 1);
    CollectingSubscriber subscriber = start(REQUEST);
    plane.held.get("r1").send(7);

    WorkerStreamException broken = broken();
    plane.held.get("r1").fail(broken);

    assertThat(subscriber.done.get(10, TimeUnit.SECONDS)).isSameAs(broken);
    assertThat(plane.sends).containsExactly("w1", "w2");
    assertThat(router.workers()).extracting(WorkerStatus::activeRequests).containsExactly(0, 0);
  }

  @Test
  void migrationOff_theBreakReachesTheCaller() throws Exception {
    plane.set("w1", Behaviour.HOLD).set("w2", Behaviour.HOLD);
    roundRobin(2, 0);
    CollectingSubscriber subscriber = start(REQUEST);
    plane.held.get("r1").send(7);
    plane.held.get("r1").fail(broken());

    assertThat(subscriber.done.get(10, TimeUnit.SECONDS)).isInstanceOf(WorkerStreamException.class);
    assertThat(plane.sends).containsExactly("w1");
    assertThat(migrations()).isZero();
  }

  @Test
  void aFailureBeforeTheNewWorkersFirstOutput_movesOnWithoutTakingAMigration() throws Exception {
    plane.set("w1", Behaviour.HOLD).set("w2", Behaviour.HOLD);
    plane.set("w3", Behaviour.DIE_BEFORE_OUTPUT);
    roundRobin(3, 1);
    CollectingSubscriber subscriber = start(REQUEST);
    plane.held.get("r1").send(7);

    plane.held.get("r1").fail(broken());

    // round-robin's second turn among w2 and w3 is w3, which dies before any output
    assertThat(plane.sends).containsExactly("w1", "w3", "w2");
    assertThat(plane.sentRequests.subList(1, 3))
        .allSatisfy(r -> assertThat(r.tokenIds()).containsExactly(1, 2, 3, 7));
    plane.held.get("r1").answer(8);
    assertThat(subscriber.done.get(10, TimeUnit.SECONDS)).isNull();
    assertThat(subscriber.tokens()).containsExactly(7, 8);
    assertThat(migrations()).isEqualTo(1);
    assertThat(router.workers())
        .extracting(WorkerStatus::healthy)
        .containsExactly(false, true, false);
  }

  @Test
  void aCancelledRequest_isNotMigrated() throws Exception {
    plane.set("w1", Behaviour.HOLD).set("w2", Behaviour.HOLD);
    roundRobin(2, 3);
    CollectingSubscriber subscriber = new CollectingSubscriber();
    ResponseStream stream = result(router.generate("r1", REQUEST));
    stream.subscribe(subscriber);
    plane.held.get("r1").send(7);

    stream.cancel();

    assertThat(subscriber.done.get(10, TimeUnit.SECONDS))
        .isInstanceOf(RequestCancelledException.class);
    assertThat(plane.sends).containsExactly("w1");
    assertThat(migrations()).isZero();
    assertThat(router.workers()).extracting(WorkerStatus::healthy).containsExactly(true, true);
  }

  @Test
  void aBreakThatRacesTheCallersCancel_isNotMigrated() throws Exception {
    plane.set("w1", Behaviour.HOLD_THROUGH_CANCEL).set("w2", Behaviour.HOLD);
    roundRobin(2, 3);
    CollectingSubscriber subscriber = new CollectingSubscriber();
    ResponseStream stream = result(router.generate("r1", REQUEST));
    stream.subscribe(subscriber);
    plane.held.get("r1").send(7);

    stream.cancel();
    plane.held.get("r1").fail(broken()); // the stream broke before the cancel reached it

    assertThat(subscriber.done.get(10, TimeUnit.SECONDS)).isInstanceOf(WorkerStreamException.class);
    assertThat(plane.sends).containsExactly("w1");
    assertThat(migrations()).isZero();
  }

  @Test
  void aCancelWhileTheNewWorkerIsBeingReached_cancelsTheRequestThere() throws Exception {
    plane.set("w1", Behaviour.HOLD).set("w2", Behaviour.ACK_WHEN_TOLD);
    roundRobin(2, 3);
    CollectingSubscriber subscriber = new CollectingSubscriber();
    ResponseStream stream = result(router.generate("r1", REQUEST));
    stream.subscribe(subscriber);
    plane.held.get("r1").send(7);
    plane.held.get("r1").fail(broken());
    assertThat(plane.sends).containsExactly("w1", "w2");

    stream.cancel();
    assertThat(subscriber.done).isNotDone();
    plane.acknowledge("r1");

    assertThat(subscriber.done.get(10, TimeUnit.SECONDS))
        .isInstanceOf(RequestCancelledException.class);
    assertThat(plane.cancels).containsExactly("w1", "w2");
    assertThat(subscriber.tokens()).containsExactly(7);
    assertThat(router.workers()).extracting(WorkerStatus::activeRequests).containsExactly(0, 0);
  }

  @Test
  void anErrorTheWorkerReports_isNotMigrated() throws Exception {
    plane.set("w1", Behaviour.HOLD).set("w2", Behaviour.HOLD);
    roundRobin(2, 3);
    CollectingSubscriber subscriber = start(REQUEST);
    plane.held.get("r1").send(7);

    plane.held.get("r1").fail(WorkerStreamException.reported("boom"));

    assertThat(subscriber.done.get(10, TimeUnit.SECONDS))
        .isInstanceOf(WorkerStreamException.class)
        .hasMessage("boom");
    assertThat(plane.sends).containsExactly("w1");
    assertThat(migrations()).isZero();
    assertThat(router.workers()).extracting(WorkerStatus::healthy).containsExactly(true, true);
  }

  @Test
  void aRequestForSeveralChoices_isNotMigrated() throws Exception {
    plane.set("w1", Behaviour.HOLD).set("w2", Behaviour.HOLD);
    roundRobin(2, 3);
    SamplingOptions twoChoices =
        new SamplingOptions(2, null, 0.8, null, null, null, null, null, null);
    CollectingSubscriber subscriber =
        start(
            new PreprocessedRequest(
                "m", new int[] {1, 2, 3}, STOP, twoChoices, null, List.of(), List.of()));
    plane.held.get("r1").send(7);

    plane.held.get("r1").fail(broken());

    assertThat(subscriber.done.get(10, TimeUnit.SECONDS)).isInstanceOf(WorkerStreamException.class);
    assertThat(plane.sends).containsExactly("w1");
  }

  @Test
  void aStreamBrokenAfterItsFinish_isNotMigrated() throws Exception {
    plane.set("w1", Behaviour.HOLD).set("w2", Behaviour.HOLD);
    roundRobin(2, 3);
    CollectingSubscriber subscriber = start(REQUEST);
    plane.held.get("r1").send(EngineOutput.finished(FinishReason.EOS, 7));

    plane.held.get("r1").fail(broken());

    assertThat(subscriber.done.get(10, TimeUnit.SECONDS)).isInstanceOf(WorkerStreamException.class);
    assertThat(plane.sends).containsExactly("w1");
  }

  @Test
  void aBreakAfterEveryTokenWasGenerated_endsWithLength_withoutAnotherWorker() throws Exception {
    plane.set("w1", Behaviour.HOLD).set("w2", Behaviour.HOLD);
    roundRobin(2, 1);
    CollectingSubscriber subscriber =
        start(request(new int[] {1, 2, 3}, new StopConditions(3, null, null, null, null)));
    plane.held.get("r1").send(7, 8);
    plane.held.get("r1").send(9);

    plane.held.get("r1").fail(broken());

    assertThat(subscriber.done.get(10, TimeUnit.SECONDS)).isNull();
    assertThat(subscriber.tokens()).containsExactly(7, 8, 9);
    assertThat(subscriber.outputs.get(subscriber.outputs.size() - 1))
        .isEqualTo(EngineOutput.finished(FinishReason.LENGTH));
    assertThat(plane.sends).containsExactly("w1");
    assertThat(migrations()).isZero();
    assertThat(router.workers()).extracting(WorkerStatus::activeRequests).containsExactly(0, 0);
  }

  @Test
  void aPausedStream_staysPausedOnItsNewWorker_andResumeAndCancelReachIt() throws Exception {
    plane.set("w1", Behaviour.HOLD).set("w2", Behaviour.HOLD);
    roundRobin(2, 1);
    CollectingSubscriber subscriber = new CollectingSubscriber();
    ResponseStream stream = result(router.generate("r1", REQUEST));
    stream.subscribe(subscriber);
    plane.held.get("r1").send(7);
    stream.pause();

    plane.held.get("r1").fail(broken());

    assertThat(plane.sends).containsExactly("w1", "w2");
    assertThat(plane.held.get("r1").paused()).isTrue();
    stream.resume();
    assertThat(plane.held.get("r1").paused()).isFalse();
    stream.cancel();
    assertThat(plane.cancels).containsExactly("w2");
    assertThat(subscriber.done.get(10, TimeUnit.SECONDS))
        .isInstanceOf(RequestCancelledException.class);
  }

  @Test
  void kvRouting_freesTheOldWorkersBooking_andBooksTheNewOneWithTheLongerPrompt() throws Exception {
    plane.set("w1", Behaviour.HOLD).set("w2", Behaviour.HOLD);
    router(RouterMode.KV, KvRouterConfig.APPROXIMATE, 2, 1);
    int[] prompt = IntStream.range(1000, 1032).toArray(); // two blocks
    CollectingSubscriber subscriber =
        start(request(prompt, new StopConditions(100, null, null, null, null)));
    String first = plane.sends.get(0);
    String second = first.equals("w1") ? "w2" : "w1";
    assertThat(kv(first).activeBlocks()).isEqualTo(2);

    plane.held.get("r1").send(IntStream.range(1, 9).toArray());
    plane.held.get("r1").send(IntStream.range(9, 17).toArray()); // a third block's worth

    plane.held.get("r1").fail(broken());

    assertThat(plane.sends).containsExactly(first, second);
    assertThat(kv(first).activeBlocks()).isZero();
    assertThat(kv(second).activeBlocks()).as("prompt and generated tokens").isEqualTo(3);
    assertThat(kv(second).activePrefillTokens()).isEqualTo(48);
    plane.held.get("r1").send(17);
    assertThat(kv(second).activePrefillTokens()).as("the new worker's first output").isZero();
    plane.held.get("r1").answer(18);
    assertThat(subscriber.done.get(10, TimeUnit.SECONDS)).isNull();
    assertThat(kv(second).activeBlocks()).isZero();
  }

  private WorkerStatus.KvView kv(String workerId) {
    return router.workers().stream()
        .filter(w -> w.id().equals(workerId))
        .findFirst()
        .orElseThrow()
        .kv()
        .orElseThrow();
  }
}
