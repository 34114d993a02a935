package io.kvrouter.routing;

import static io.kvrouter.testing.CollectingSubscriber.drain;
import static io.kvrouter.testing.Futures.failure;
import static io.kvrouter.testing.Futures.result;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.KvRouterConfig;
import io.kvrouter.config.RouterMode;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.InvalidRequestException;
import io.kvrouter.protocol.NoWorkerAvailableException;
import io.kvrouter.protocol.PreprocessedRequest;
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
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PushRouterTest {
  private static final PreprocessedRequest REQUEST =
      new PreprocessedRequest("m", new int[] {1, 2, 3}, null, null, null, null, null);

  private static final int BLOCK_SIZE = 16;
  private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(120);

  private final Vertx vertx = Vertx.vertx();
  private final FakeRequestPlane plane = new FakeRequestPlane();
  private final ManualTicker ticker = new ManualTicker();

  /** Swept only when a test calls {@code sweep()}, after moving {@link #ticker}. */
  private final StalledStreams stalledStreams = new StalledStreams(IDLE_TIMEOUT, ticker);

  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private Migration migration = Migration.OFF;
  private RoutingPolicy policy;
  private List<WorkerState> states;

  @AfterEach
  void close() {
    vertx.close();
  }

  /** A router over workers w1 .. wN in {@code mode}; {@link #policy} is its policy. */
  private Router router(RouterMode mode, int workers) {
    states =
        IntStream.rangeClosed(1, workers)
            .mapToObj(i -> new WorkerEndpoint("w" + i, "127.0.0.1", 9000 + i, "generate"))
            .map(endpoint -> new WorkerState(RouteTarget.of(endpoint), ticker))
            .toList();
    policy = Routers.policy(mode, KvRouterConfig.DEFAULTS, BLOCK_SIZE, vertx, meters);
    return new PushRouter(
        states,
        plane,
        policy,
        BlockHasher.of(BLOCK_SIZE),
        new HealthProber(vertx, plane, meters),
        stalledStreams,
        migration,
        meters);
  }

  /** Sends {@code tokens} and subscribes; the stream stays open on a holding worker. */
  private ResponseStream send(Router router, String requestId, int[] tokens) throws Exception {
    ResponseStream stream =
        result(
            router.generate(
                requestId, new PreprocessedRequest("m", tokens, null, null, null, null, null)));
    stream.subscribe(new CollectingSubscriber());
    return stream;
  }

  /** {@code length} tokens from {@code first} on. */
  private static int[] tokens(int first, int length) {
    return IntStream.range(first, first + length).toArray();
  }

  private int inFlight() {
    return LivePolicyConcurrencyTest.requestsInFlight(policy);
  }

  @Test
  void roundRobin_takesWorkersInTurn() throws Exception {
    Router router = router(RouterMode.ROUND_ROBIN, 3);
    for (int i = 0; i < 6; i++) {
      drain(result(router.generate("r" + i, REQUEST)));
    }
    assertThat(plane.sends).containsExactly("w1", "w2", "w3", "w1", "w2", "w3");
  }

  @Test
  void random_spreadsOverAllWorkers() throws Exception {
    Router router = router(RouterMode.RANDOM, 3);
    for (int i = 0; i < 300; i++) {
      drain(result(router.generate("r" + i, REQUEST)));
    }
    Map<String, Long> counts =
        plane.sends.stream()
            .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
    assertThat(counts).containsOnlyKeys("w1", "w2", "w3");
    assertThat(counts.values()).allMatch(c -> c > 50);
  }

  @Test
  void unreachableWorker_isSkippedMarkedUnhealthyAndProbedBack() throws Exception {
    plane.set("w1", Behaviour.UNREACHABLE);
    Router router = router(RouterMode.ROUND_ROBIN, 2);

    CollectingSubscriber result = drain(result(router.generate("r1", REQUEST)));

    assertThat(result.done.get()).isNull();
    assertThat(result.tokens()).containsExactly(2);
    assertThat(plane.sends).containsExactly("w1", "w2");
    assertThat(router.workers()).extracting(WorkerStatus::healthy).containsExactly(false, true);

    plane.set("w1", Behaviour.ANSWER);
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> router.workers().get(0).healthy());
    assertThat(plane.probes).contains("w1");
  }

  @Test
  void workerDyingBeforeFirstOutput_requestGoesToNextWorkerUnseen() throws Exception {
    plane.set("w1", Behaviour.DIE_BEFORE_OUTPUT);
    Router router = router(RouterMode.ROUND_ROBIN, 2);

    CollectingSubscriber result = drain(result(router.generate("r1", REQUEST)));

    assertThat(result.done.get()).isNull();
    assertThat(result.tokens()).containsExactly(2);
    assertThat(router.workers()).extracting(WorkerStatus::activeRequests).containsExactly(0, 0);
    assertThat(router.workers()).extracting(WorkerStatus::healthy).containsExactly(false, true);
  }

  @Test
  void refusingWorker_isPassedOverButStaysInRotation() throws Exception {
    plane.set("w1", Behaviour.REFUSE);
    Router router = router(RouterMode.ROUND_ROBIN, 2);

    CollectingSubscriber result = drain(result(router.generate("r1", REQUEST)));

    assertThat(result.tokens()).containsExactly(2);
    assertThat(plane.sends).containsExactly("w1", "w2");
    assertThat(router.workers()).extracting(WorkerStatus::healthy).containsExactly(true, true);
  }

  @Test
  void everyWorkerRefusing_is503ButNoWorkerLeavesRotation() throws Exception {
    plane.set("w1", Behaviour.REFUSE).set("w2", Behaviour.REFUSE);
    Router router = router(RouterMode.ROUND_ROBIN, 2);

    assertThat(failure(router.generate("r1", REQUEST)))
        .isInstanceOf(NoWorkerAvailableException.class)
        .hasMessageContaining("Server overloaded");
    assertThat(router.hasHealthyWorker()).isTrue();
  }

  @Test
  void everyWorkerRefusingAsNeverFitting_isAnInvalidRequest_namingTheLimit() throws Exception {
    plane.set("w1", Behaviour.NEVER_FITS).set("w2", Behaviour.NEVER_FITS);
    Router router = router(RouterMode.ROUND_ROBIN, 2);

    assertThat(failure(router.generate("r1", REQUEST)))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessage(
            "This request does not fit in any worker's KV cache (it needs 3 tokens of KV cache,"
                + " the worker holds 2). Shorten the prompt or lower 'max_tokens'.");
    assertThat(plane.sends).containsExactly("w1", "w2");
    assertThat(router.hasHealthyWorker()).isTrue();
  }

  @Test
  void neverFittingOnOneWorker_butFullOnAnother_staysAPassingFailure() throws Exception {
    for (Behaviour first : List.of(Behaviour.NEVER_FITS, Behaviour.REFUSE)) {
      plane
          .set("w1", first)
          .set("w2", first == Behaviour.REFUSE ? Behaviour.NEVER_FITS : Behaviour.REFUSE);
      Router router = router(RouterMode.ROUND_ROBIN, 2);

      assertThat(failure(router.generate("r-" + first, REQUEST)))
          .as("w1 %s", first)
          .isInstanceOf(NoWorkerAvailableException.class)
          .hasMessageContaining("Server overloaded");
    }
  }

  @Test
  void neverFittingOnTheOnlyHealthyWorker_staysAPassingFailure_whileAnotherIsDown()
      throws Exception {
    plane.set("w1", Behaviour.UNREACHABLE).set("w2", Behaviour.NEVER_FITS);
    Router router = router(RouterMode.ROUND_ROBIN, 2);
    result(router.start());

    assertThat(failure(router.generate("r1", REQUEST)))
        .isInstanceOf(NoWorkerAvailableException.class);
    assertThat(plane.sends).containsExactly("w2");
  }

  @Test
  void largestKvCapacity_isKnownOnlyWhenEveryWorkersIs() {
    List<WorkerState> states =
        List.of(
            new WorkerState(
                new RouteTarget(new WorkerEndpoint("w1", "h", 1, "generate"), 100), ticker),
            new WorkerState(
                new RouteTarget(new WorkerEndpoint("w2", "h", 2, "generate"), 300, 2), ticker));
    Router known =
        new PushRouter(
            states,
            plane,
            Routers.policy(RouterMode.ROUND_ROBIN, KvRouterConfig.DEFAULTS, 16, vertx, meters),
            BlockHasher.of(16),
            new HealthProber(vertx, plane, meters),
            stalledStreams,
            Migration.OFF,
            meters);
    assertThat(known.largestKvCapacityTokens()).hasValue(300 * 16);

    assertThat(router(RouterMode.ROUND_ROBIN, 2).largestKvCapacityTokens())
        .as("no kv-blocks, no load reports")
        .isEmpty();
  }

  @Test
  void errorReportedForTheRequest_reachesTheCallerWithoutRetry() throws Exception {
    plane.set("w1", Behaviour.REPORT_ERROR);
    Router router = router(RouterMode.ROUND_ROBIN, 2);

    CollectingSubscriber result = drain(result(router.generate("r1", REQUEST)));

    assertThat(result.done.get())
        .isInstanceOf(WorkerStreamException.class)
        .hasMessage("worker w1 failed: prompt too long");
    assertThat(plane.sends).containsExactly("w1");
    assertThat(router.workers()).extracting(WorkerStatus::healthy).containsExactly(true, true);
  }

  @Test
  void failureAfterOutput_reachesTheCaller_andTakesTheWorkerOut() throws Exception {
    plane.set("w1", Behaviour.DIE_AFTER_OUTPUT);
    Router router = router(RouterMode.ROUND_ROBIN, 2);

    CollectingSubscriber result = drain(result(router.generate("r1", REQUEST)));

    assertThat(result.done.get()).isInstanceOf(WorkerStreamException.class);
    assertThat(result.tokens()).containsExactly(1);
    assertThat(plane.sends).containsExactly("w1");
    assertThat(router.workers()).extracting(WorkerStatus::healthy).containsExactly(false, true);
    assertThat(faults("w1")).isEqualTo(1);
  }

  @Test
  void streamSilentForTheIdleTimeout_endsWithTheStall_isCancelledThere_andTakesTheWorkerOut()
      throws Exception {
    plane.set("w1", Behaviour.HOLD);
    Router router = router(RouterMode.ROUND_ROBIN, 2);
    CollectingSubscriber result = new CollectingSubscriber();
    result(router.generate("r1", REQUEST)).subscribe(result);
    plane.held.get("r1").output();

    ticker.advance(IDLE_TIMEOUT.minusMillis(1));
    assertThat(stalledStreams.sweep()).isZero();
    ticker.advance(Duration.ofMillis(1));
    assertThat(stalledStreams.sweep()).isEqualTo(1);

    Throwable error = result.done.get(10, TimeUnit.SECONDS);
    assertThat(error)
        .isInstanceOf(WorkerStreamException.class)
        .hasMessage(
            "worker w1 stopped sending: no output for 120 s"
                + " (--worker-stream-idle-timeout-secs); the request was cancelled there");
    assertThat(((WorkerStreamException) error).stalled()).isTrue();
    assertThat(result.tokens()).containsExactly(1);
    assertThat(plane.cancels).containsExactly("w1");
    assertThat(router.workers()).extracting(WorkerStatus::healthy).containsExactly(false, true);
    assertThat(router.workers()).extracting(WorkerStatus::activeRequests).containsExactly(0, 0);
    assertThat(stalledStreams.size()).isZero();
  }

  @Test
  void streamSilentBeforeItsFirstOutput_goesToTheNextWorkerUnseen() throws Exception {
    plane.set("w1", Behaviour.HOLD);
    Router router = router(RouterMode.ROUND_ROBIN, 2);
    CollectingSubscriber result = new CollectingSubscriber();
    result(router.generate("r1", REQUEST)).subscribe(result);

    ticker.advance(IDLE_TIMEOUT);
    stalledStreams.sweep();

    assertThat(result.done.get(10, TimeUnit.SECONDS)).isNull();
    assertThat(result.tokens()).containsExactly(2);
    assertThat(plane.sends).containsExactly("w1", "w2");
    assertThat(router.workers()).extracting(WorkerStatus::healthy).containsExactly(false, true);
  }

  @Test
  void everyOutputRestartsTheIdleClock() throws Exception {
    plane.set("w1", Behaviour.HOLD);
    Router router = router(RouterMode.ROUND_ROBIN, 1);
    CollectingSubscriber result = new CollectingSubscriber();
    result(router.generate("r1", REQUEST)).subscribe(result);

    for (int i = 0; i < 5; i++) {
      ticker.advance(IDLE_TIMEOUT.minusSeconds(1));
      assertThat(stalledStreams.sweep()).isZero();
      plane.held.get("r1").output();
    }
    plane.held.get("r1").complete();

    assertThat(result.done.get(10, TimeUnit.SECONDS)).isNull();
    assertThat(result.outputs).hasSize(6);
    assertThat(router.workers()).extracting(WorkerStatus::healthy).containsExactly(true);
    assertThat(stalledStreams.size()).isZero();
  }

  @Test
  void aStreamPausedByItsClient_isNotIdle() throws Exception {
    plane.set("w1", Behaviour.HOLD);
    Router router = router(RouterMode.ROUND_ROBIN, 1);
    CollectingSubscriber result = new CollectingSubscriber();
    ResponseStream stream = result(router.generate("r1", REQUEST));
    stream.subscribe(result);
    plane.held.get("r1").output();

    stream.pause();
    ticker.advance(IDLE_TIMEOUT.multipliedBy(10));
    assertThat(stalledStreams.sweep()).isZero();
    stream.resume();
    ticker.advance(IDLE_TIMEOUT.minusMillis(1));
    assertThat(stalledStreams.sweep()).as("the clock restarted at resume").isZero();
    ticker.advance(Duration.ofMillis(1));
    assertThat(stalledStreams.sweep()).isEqualTo(1);

    assertThat(result.done.get(10, TimeUnit.SECONDS))
        .isInstanceOf(WorkerStreamException.class)
        .hasMessageContaining("stopped sending");
  }

  @Test
  void aStreamTheClientCancelled_endsAsCancelled_andTheWorkerStaysIn() throws Exception {
    plane.set("w1", Behaviour.HOLD);
    Router router = router(RouterMode.ROUND_ROBIN, 1);
    CollectingSubscriber result = new CollectingSubscriber();
    ResponseStream stream = result(router.generate("r1", REQUEST));
    stream.subscribe(result);

    stream.cancel();
    ticker.advance(IDLE_TIMEOUT);

    assertThat(stalledStreams.sweep()).isZero();
    assertThat(result.done.get(10, TimeUnit.SECONDS)).isInstanceOf(RequestCancelledException.class);
    assertThat(router.workers()).extracting(WorkerStatus::healthy).containsExactly(true);
  }

  @Test
  void aWorkerThatPassesProbesButFailsRequests_isProbedLessAndLessOften() throws Exception {
    plane.set("w1", Behaviour.FAIL_REQUESTS);
    Router router = router(RouterMode.ROUND_ROBIN, 2);
    WorkerHealth w1 = states.get(0).health;

    for (int round = 1; round <= 3; round++) {
      sendUntilTried(router, "w1", round);
      assertThat(w1.healthy()).isFalse();
      assertThat(w1.failures()).as("failures carried across recoveries").isEqualTo(round);
      assertThat(w1.nextProbeDelay()).isEqualTo(WorkerHealth.backoff(round - 1));
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(w1::healthy);
    }

    plane.set("w1", Behaviour.ANSWER);
    sendUntilTried(router, "w1", 4);
    assertThat(w1.healthy()).isTrue();
    assertThat(w1.failures()).as("a completed request forgives").isZero();
    assertThat(faults("w1")).isEqualTo(3);
    assertThat(probes("w1", "ok")).isEqualTo(3);
  }

  /** Sends requests until {@code workerId} has been tried {@code times} times in all. */
  private void sendUntilTried(Router router, String workerId, int times) throws Exception {
    for (int i = 0; plane.sends.stream().filter(workerId::equals).count() < times; i++) {
      assertThat(i).as("requests sent before %s was tried", workerId).isLessThan(100);
      drain(result(router.generate("r" + plane.sends.size(), REQUEST)));
    }
  }

  private double faults(String workerId) {
    Counter counter =
        meters.find(MetricNames.WORKER_FAULTS).tag(MetricNames.TAG_WORKER_ID, workerId).counter();
    return counter == null ? 0 : counter.count();
  }

  private double probes(String workerId, String outcome) {
    Counter counter =
        meters
            .find(MetricNames.WORKER_HEALTH_PROBES)
            .tag(MetricNames.TAG_WORKER_ID, workerId)
            .tag(MetricNames.TAG_OUTCOME, outcome)
            .counter();
    return counter == null ? 0 : counter.count();
  }

  @Test
  void everyWorkerDown_failsWithNoWorkerAvailable() throws Exception {
    plane.set("w1", Behaviour.UNREACHABLE).set("w2", Behaviour.UNREACHABLE);
    Router router = router(RouterMode.ROUND_ROBIN, 2);

    assertThat(failure(router.generate("r1", REQUEST)))
        .isInstanceOf(NoWorkerAvailableException.class)
        .hasMessageContaining("connection refused");
    assertThat(failure(router.generate("r2", REQUEST)))
        .isInstanceOf(NoWorkerAvailableException.class)
        .hasMessageContaining("No healthy worker");
    assertThat(router.hasHealthyWorker()).isFalse();
  }

  @Test
  void start_marksUnreachableWorkersBeforeTraffic() throws Exception {
    plane.set("w2", Behaviour.UNREACHABLE);
    Router router = router(RouterMode.ROUND_ROBIN, 2);
    result(router.start());
    assertThat(router.workers()).extracting(WorkerStatus::healthy).containsExactly(true, false);
    assertThat(plane.sends).isEmpty();
  }

  @Test
  void leastLoaded_takesTheWorkerWithFewestRequestsInFlight_untilTheyEndOrAreCancelled()
      throws Exception {
    plane.set("w1", Behaviour.HOLD).set("w2", Behaviour.HOLD).set("w3", Behaviour.HOLD);
    Router router = router(RouterMode.LEAST_LOADED, 3);

    send(router, "r1", tokens(0, 8));
    ResponseStream r2 = send(router, "r2", tokens(0, 8));
    plane.held.get("r1").complete();
    send(router, "r3", tokens(0, 8));
    send(router, "r4", tokens(0, 8));

    assertThat(plane.sends).containsExactly("w1", "w2", "w1", "w3");
    assertThat(inFlight()).isEqualTo(3);
    r2.cancel();
    plane.held.get("r3").complete();
    plane.held.get("r4").complete();
    assertThat(inFlight()).isZero();
  }

  @Test
  void leastLoaded_aRefusedSendReleasesItsBooking() throws Exception {
    plane.set("w1", Behaviour.REFUSE).set("w2", Behaviour.HOLD).set("w3", Behaviour.HOLD);
    Router router = router(RouterMode.LEAST_LOADED, 3);

    send(router, "r1", tokens(0, 8));
    send(router, "r2", tokens(0, 8));

    // had w1 kept r1's booking, r2 would have gone straight to w3, the only worker without one
    assertThat(plane.sends).containsExactly("w1", "w2", "w1", "w3");
    assertThat(inFlight()).isEqualTo(2);
    plane.held.get("r1").complete();
    plane.held.get("r2").complete();
    assertThat(inFlight()).isZero();
  }

  @Test
  void powerOfTwo_keepsTwoWorkersWithinOneRequestOfEachOther() throws Exception {
    plane.set("w1", Behaviour.HOLD).set("w2", Behaviour.HOLD);
    Router router = router(RouterMode.POWER_OF_TWO, 2);
    List<ResponseStream> streams = new java.util.ArrayList<>();
    for (int i = 0; i < 10; i++) {
      streams.add(send(router, "r" + i, tokens(0, 8)));
      long w1 = plane.sends.stream().filter("w1"::equals).count();
      assertThat(Math.abs(2 * w1 - (i + 1))).isLessThanOrEqualTo(1);
    }
    assertThat(inFlight()).isEqualTo(10);
    streams.forEach(ResponseStream::cancel);
    assertThat(inFlight()).isZero();
    assertThat(router.workers()).extracting(WorkerStatus::activeRequests).containsExactly(0, 0);
  }

  @Test
  void sglang_keepsAPrefixOnItsWorker_andReleasesWhatAFailedAttemptBooked() throws Exception {
    plane.set("w1", Behaviour.HOLD).set("w2", Behaviour.HOLD).set("w3", Behaviour.HOLD);
    Router router = router(RouterMode.SGLANG, 3);
    int[] prefix = tokens(1000, 160);
    int[] longer = IntStream.concat(IntStream.of(prefix), IntStream.range(0, 32)).toArray();

    send(router, "r1", prefix);
    send(router, "r2", longer); // the cached prefix wins over w1's load
    send(router, "r3", tokens(5000, 160)); // no match: the least loaded
    plane.set("w1", Behaviour.DIE_BEFORE_OUTPUT);
    send(router, "r4", longer); // to w1, which dies; then to the least loaded of the others

    assertThat(plane.sends).containsExactly("w1", "w1", "w2", "w1", "w3");
    assertThat(inFlight()).as("r4's booking on w1 was released").isEqualTo(4);

    List.of("r1", "r2", "r3", "r4").forEach(id -> plane.held.get(id).complete());
    assertThat(inFlight()).isZero();
  }
}
