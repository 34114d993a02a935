package io.kvrouter.routing;

import static io.kvrouter.testing.CollectingSubscriber.drain;
import static io.kvrouter.testing.Futures.failure;
import static io.kvrouter.testing.Futures.result;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.KvRouterConfig;
import io.kvrouter.config.RouterMode;
import io.kvrouter.protocol.NoWorkerAvailableException;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerStatus;
import io.kvrouter.protocol.WorkerStreamException;
import io.kvrouter.testing.CollectingSubscriber;
import io.kvrouter.testing.FakeRequestPlane;
import io.kvrouter.testing.FakeRequestPlane.Behaviour;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PushRouterTest {
  private static final PreprocessedRequest REQUEST =
      new PreprocessedRequest("m", new int[] {1, 2, 3}, null, null, null, null, null);

  private final Vertx vertx = Vertx.vertx();
  private final FakeRequestPlane plane = new FakeRequestPlane();

  @AfterEach
  void close() {
    vertx.close();
  }

  private Router router(RouterMode mode, int workers) {
    List<WorkerEndpoint> endpoints =
        IntStream.rangeClosed(1, workers)
            .mapToObj(i -> new WorkerEndpoint("w" + i, "127.0.0.1", 9000 + i, "generate"))
            .toList();
    return Routers.create(
        mode,
        KvRouterConfig.DEFAULTS,
        16,
        endpoints.stream().map(RouteTarget::of).toList(),
        plane,
        vertx,
        new SimpleMeterRegistry());
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
  void errorReportedForTheRequest_reachesTheCallerWithoutRetry() throws Exception {
    plane.set("w1", Behaviour.REPORT_ERROR);
    Router router = router(RouterMode.ROUND_ROBIN, 2);

    CollectingSubscriber result = drain(result(router.generate("r1", REQUEST)));

    assertThat(result.done.get())
        .isInstanceOf(WorkerStreamException.class)
        .hasMessage("prompt too long");
    assertThat(plane.sends).containsExactly("w1");
    assertThat(router.workers()).extracting(WorkerStatus::healthy).containsExactly(true, true);
  }

  @Test
  void failureAfterOutput_reachesTheCaller() throws Exception {
    plane.set("w1", Behaviour.DIE_AFTER_OUTPUT);
    Router router = router(RouterMode.ROUND_ROBIN, 2);

    CollectingSubscriber result = drain(result(router.generate("r1", REQUEST)));

    assertThat(result.done.get()).isInstanceOf(WorkerStreamException.class);
    assertThat(result.tokens()).containsExactly(1);
    assertThat(plane.sends).containsExactly("w1");
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
  void backoff_doublesUpToTheCap() {
    assertThat(HealthProber.backoff(0)).isEqualTo(Duration.ofMillis(250));
    assertThat(HealthProber.backoff(1)).isEqualTo(Duration.ofMillis(500));
    assertThat(HealthProber.backoff(3)).isEqualTo(Duration.ofSeconds(2));
    assertThat(HealthProber.backoff(40)).isEqualTo(Duration.ofSeconds(30));
  }
}
