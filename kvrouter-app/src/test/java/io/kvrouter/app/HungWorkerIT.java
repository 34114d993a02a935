package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.WorkerStatus;
import io.kvrouter.testing.Http;
import io.kvrouter.testing.Prometheus;
import io.kvrouter.testing.WorkerProcess;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Workers that hang (SIGSTOP) instead of dying: the kernel still accepts connections on their port,
 * so only a probe the worker process must answer, and a timeout on silent streams, keep clients
 * from waiting on them. Three worker processes behind one router in round-robin mode, with short
 * timeouts (1 s acknowledgement, 3 s stream silence); every assertion counts events (requests,
 * faults, probes), none measures how long something took.
 */
class HungWorkerIT {
  private static final String CHAT =
      "{\"model\":\"mock-model\",\"max_tokens\":2,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
  private static final String LONG_STREAM =
      "{\"model\":\"mock-model\",\"stream\":true,\"max_tokens\":400,"
          + "\"messages\":[{\"role\":\"user\",\"content\":\"tell me a long story\"}]}";
  private static final Duration PATIENCE = Duration.ofSeconds(90);

  private static final List<WorkerProcess> workers = new ArrayList<>();
  private static RouterFixture router;

  @BeforeAll
  static void start() throws Exception {
    List<String> specs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      WorkerProcess worker = WorkerProcess.start("mock-model", 0, 50);
      workers.add(worker);
      specs.add(worker.workerSpec("w" + i));
    }
    Map<String, List<String>> flags = RouterFixture.workers(specs.toArray(String[]::new));
    flags.put("tcp-request-timeout", List.of("1"));
    flags.put("worker-stream-idle-timeout-secs", List.of("3"));
    router = RouterFixture.start(flags);
    // a worker's first answers can take longer than 1 s while its JVM warms up
    for (int i = 0; i < 6; i++) {
      Http.post(router.baseUrl + "/v1/chat/completions", CHAT);
    }
    awaitEveryWorkerHealthy();
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (router != null) {
        router.close();
      }
    } finally {
      for (WorkerProcess worker : workers) {
        worker.close(); // continues a worker a failed test left stopped, then ends it
      }
    }
  }

  /** Every worker running and back in rotation, whatever the test did. */
  @AfterEach
  void everyWorkerBack() throws Exception {
    for (WorkerProcess worker : workers) {
      worker.resume();
    }
    awaitEveryWorkerHealthy();
    assertThat(router.detector.blockedThreads()).isEmpty();
  }

  private static void awaitEveryWorkerHealthy() {
    Awaitility.await()
        .atMost(PATIENCE)
        .until(() -> router.app.routerWorkers().stream().allMatch(WorkerStatus::healthy));
  }

  @Test
  void hungWorker_staysOutOfRotationWhileStopped_andOnlyOneRequestWaitsOnIt() throws Exception {
    for (int i = 0; i < 6; i++) {
      assertOk(Http.post(router.baseUrl + "/v1/chat/completions", CHAT));
    }
    awaitEveryWorkerHealthy(); // so the first request to the victim is the one that waits on it
    WorkerProcess victim = workers.get(0);
    double faultsBefore = metric("kvrouter_worker_faults_total", "w0");
    double failedProbesBefore = probes("w0", "failed");
    double passedProbesBefore = probes("w0", "ok");

    victim.suspend();
    try {
      boolean markedOut = false;
      int sent = 0;
      // Requests one at a time, until the stopped worker has failed three probes in a row.
      while (probes("w0", "failed") < failedProbesBefore + 3) {
        assertThat(sent).as("requests sent while waiting for failed probes").isLessThan(2000);
        assertOk(Http.post(router.baseUrl + "/v1/chat/completions", CHAT));
        sent++;
        boolean healthy = status("w0").healthy();
        assertThat(markedOut && healthy)
            .as("the stopped worker came back into rotation after %d requests", sent)
            .isFalse();
        markedOut |= !healthy;
      }

      assertThat(markedOut).isTrue();
      assertThat(status("w0").healthy()).isFalse();
      assertThat(metric("kvrouter_worker_faults_total", "w0") - faultsBefore)
          .as("requests that waited for the stopped worker's acknowledgement")
          .isEqualTo(1);
      assertThat(probes("w0", "ok") - passedProbesBefore)
          .as("probes passed while it was stopped")
          .isZero();
    } finally {
      victim.resume();
    }

    Awaitility.await().atMost(PATIENCE).until(() -> status("w0").healthy());
    double servedBefore = victim.metric("dynamo_component_requests_total");
    for (int i = 0; i < 6; i++) {
      assertOk(Http.post(router.baseUrl + "/v1/chat/completions", CHAT));
    }
    assertThat(victim.metric("dynamo_component_requests_total") - servedBefore)
        .as("requests the continued worker served, round-robin over three")
        .isGreaterThanOrEqualTo(2);
    assertThat(metric("kvrouter_worker_faults_total", "w0") - faultsBefore).isEqualTo(1);
  }

  @Test
  void streamStalledMidway_endsWithAnErrorEvent_andItsWorkerIsTakenOut() throws Exception {
    HttpResponse<Stream<String>> response =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .build()
            .send(
                HttpRequest.newBuilder(URI.create(router.baseUrl + "/v1/chat/completions"))
                    .header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(LONG_STREAM))
                    .build(),
                HttpResponse.BodyHandlers.ofLines());
    assertThat(response.statusCode()).isEqualTo(200);
    Iterator<String> events = response.body().filter(l -> l.startsWith("data: ")).iterator();
    while (!hasContent(events.next())) {
      // until the first token: from then on a failure can no longer go to another worker
    }
    int serving = servingWorker();
    WorkerProcess victim = workers.get(serving);
    double cancelledBefore = victim.metric("kvrouter_worker_cancelled_requests_total");

    victim.suspend();
    String last;
    try {
      List<String> rest =
          CompletableFuture.supplyAsync(
                  () -> {
                    List<String> remaining = new ArrayList<>();
                    events.forEachRemaining(remaining::add);
                    return remaining;
                  })
              .get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      // the error, then data: [DONE] as after any error in a stream that has started
      assertThat(rest.get(rest.size() - 1)).isEqualTo("data: [DONE]");
      last = rest.get(rest.size() - 2);
      assertThat(status("w" + serving).healthy()).isFalse();
    } catch (TimeoutException e) {
      throw new AssertionError("the stream from the stopped worker never ended", e);
    } finally {
      victim.resume();
    }

    JsonObject error = new JsonObject(last.substring("data: ".length())).getJsonObject("error");
    assertThat(error.getString("code")).isEqualTo("worker_timeout");
    assertThat(error.getString("type")).isEqualTo("server_error");
    // which worker, and why, is the operator's: the client gets the request id to ask with
    assertThat(error.getString("message"))
        .startsWith("The worker serving this request stopped sending (request id ")
        .doesNotContain("w" + serving);
    Awaitility.await()
        .atMost(PATIENCE)
        .until(() -> victim.metric("kvrouter_worker_cancelled_requests_total") > cancelledBefore);
  }

  /** The index of the worker with a request in flight; exactly one must have it. */
  private static int servingWorker() {
    List<WorkerStatus> statuses = router.app.routerWorkers();
    List<Integer> busy = new ArrayList<>();
    for (int i = 0; i < statuses.size(); i++) {
      if (statuses.get(i).activeRequests() > 0) {
        busy.add(i);
      }
    }
    assertThat(busy).as("workers with the stream in flight").hasSize(1);
    return busy.get(0);
  }

  private static boolean hasContent(String event) {
    if (event.equals("data: [DONE]")) {
      throw new AssertionError("the stream ended before the test could stop its worker");
    }
    JsonObject delta =
        new JsonObject(event.substring("data: ".length()))
            .getJsonArray("choices")
            .getJsonObject(0)
            .getJsonObject("delta");
    String content = delta.getString("content");
    return content != null && !content.isEmpty();
  }

  private static void assertOk(Http.Response response) {
    assertThat(response.status()).as(response.body()).isEqualTo(200);
  }

  private static WorkerStatus status(String id) {
    return router.app.routerWorkers().stream()
        .filter(w -> w.id().equals(id))
        .findFirst()
        .orElseThrow();
  }

  private static double probes(String workerId, String outcome) throws Exception {
    return Prometheus.sum(
        Http.get(router.baseUrl + "/metrics").body(),
        "kvrouter_worker_health_probes_total",
        Map.of("worker_id", workerId, "outcome", outcome));
  }

  private static double metric(String name, String workerId) throws Exception {
    return Prometheus.sum(
        Http.get(router.baseUrl + "/metrics").body(), name, Map.of("worker_id", workerId));
  }
}
