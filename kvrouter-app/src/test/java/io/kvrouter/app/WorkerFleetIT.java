package io.kvrouter.app;

import static io.kvrouter.app.KvConvergence.awaitConverged;
import static io.kvrouter.app.KvConvergence.send;
import static io.kvrouter.app.KvConvergence.workload;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.WorkerSpec;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.testing.Http;
import io.kvrouter.testing.NatsServerProcess;
import io.kvrouter.testing.WorkerProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Workers joining and leaving a running router through its {@link WorkerFleet} (what a discovery
 * backend drives), with real worker processes: a joined worker serves requests and its KV events
 * are followed until the index holds its cache block for block; a worker that left gets no request
 * and has no block in the index, and clients see no error; a request streaming from it when it
 * leaves finishes there; the same worker may join again.
 */
class WorkerFleetIT {
  private static final String REQUESTS = "dynamo_component_requests_total";

  private static WorkerProcess worker(int itlMs, List<String> more) throws Exception {
    List<String> options =
        new ArrayList<>(
            List.of(
                "--port",
                "0",
                "--kv-events-port",
                "0",
                "--block-size",
                String.valueOf(KvConvergence.BLOCK_SIZE),
                "--num-gpu-blocks",
                String.valueOf(KvConvergence.KV_BLOCKS)));
    options.addAll(more);
    return WorkerProcess.start(KvConvergence.MODEL, 0, itlMs, options);
  }

  private static RouterFixture router(WorkerProcess first, String id) throws Exception {
    Map<String, List<String>> flags = KvConvergence.kvFlags();
    flags.put("worker", List.of(first.workerSpec(id)));
    return RouterFixture.start(flags);
  }

  private static List<String> workerIds(RouterFixture router) throws Exception {
    JsonArray workers = Http.get(router.baseUrl + "/router/workers").json().getJsonArray("workers");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < workers.size(); i++) {
      ids.add(workers.getJsonObject(i).getString("worker_id"));
    }
    return ids;
  }

  private static boolean indexHolds(RouterFixture router, String workerId) throws Exception {
    return KvConvergence.routerBlocksByRank(router).keySet().stream()
        .map(WorkerRank::workerId)
        .anyMatch(workerId::equals);
  }

  @Test
  void vllmEvents_aWorkerJoinsServesAndIsFollowed_thenLeavesAndIsGone_thenJoinsAgain()
      throws Exception {
    WorkerProcess w1 = worker(0, List.of("--kv-replay-port", "0"));
    WorkerProcess w2 = worker(0, List.of("--kv-replay-port", "0"));
    Random random = new Random(11);
    try (RouterFixture router = router(w1, "w1")) {
      WorkerFleet fleet = router.app.fleet();
      send(router, workload(random, 20));
      assertThat(w2.metric(REQUESTS)).as("not in the router yet").isZero();

      // joins at run time: served at once, its events followed
      fleet.join(WorkerSpec.parse(w2.workerSpec("w2")));
      assertThat(workerIds(router)).containsExactly("w1", "w2");
      send(router, workload(random, 60));
      assertThat(w2.metric(REQUESTS)).as("the joined worker served requests").isPositive();
      awaitConverged(router, Map.of("w1", w1, "w2", w2));

      // leaves: nothing more for it, its blocks out of the index at once, no client error
      assertThat(fleet.leave("w2")).isTrue();
      assertThat(indexHolds(router, "w2")).as("w2's blocks left the index").isFalse();
      assertThat(workerIds(router)).containsExactly("w1");
      double servedBefore = w2.metric(REQUESTS);
      send(router, workload(random, 30));
      assertThat(w2.metric(REQUESTS))
          .as("nothing sent to a worker that left")
          .isEqualTo(servedBefore);
      assertThat(indexHolds(router, "w2")).as("its events are no longer followed").isFalse();
      assertThat(Http.get(router.baseUrl + "/metrics").body())
          .as("its subscriber's meters went with it")
          .doesNotContainPattern("kvrouter_kv_event_batches_total\\{[^}]*worker_id=\"w2\"");

      // joins again (a restarted pod): replayed from its publisher, served again
      fleet.join(WorkerSpec.parse(w2.workerSpec("w2")));
      send(router, workload(random, 60));
      assertThat(w2.metric(REQUESTS)).isGreaterThan(servedBefore);
      awaitConverged(router, Map.of("w1", w1, "w2", w2));
    } finally {
      w1.close();
      w2.close();
    }
  }

  @Test
  void dynamoEvents_aStreamOfAWorkerThatLeaves_finishesThere_andTheNextRequestsGoToTheJoined()
      throws Exception {
    // the leaving worker is slow, so that a stream is still running when it leaves
    WorkerProcess slow = worker(25, List.of("--kv-events-format", "dynamo", "--worker-id", "71"));
    WorkerProcess fresh = worker(0, List.of("--kv-events-format", "dynamo", "--worker-id", "72"));
    try (RouterFixture router = router(slow, "71")) {
      WorkerFleet fleet = router.app.fleet();
      CompletableFuture<Http.Response> streaming =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return Http.postJson(
                      router.baseUrl + "/v1/completions",
                      new JsonObject()
                          .put("model", KvConvergence.MODEL)
                          .put("prompt", "a stream that outlives its worker's membership")
                          .put("max_tokens", 60)
                          .put("ignore_eos", true));
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      Awaitility.await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  Http.get(router.baseUrl + "/router/workers")
                          .json()
                          .getJsonArray("workers")
                          .getJsonObject(0)
                          .getInteger("active_requests")
                      == 1);

      fleet.join(WorkerSpec.parse(fresh.workerSpec("72")));
      fleet.leave("71");

      Http.Response response = streaming.get(60, TimeUnit.SECONDS);
      assertThat(response.status()).as(response.body()).isEqualTo(200);
      assertThat(response.json().getJsonObject("usage").getInteger("completion_tokens"))
          .as("the stream ran to its end on the worker that left")
          .isEqualTo(60);
      double slowServed = slow.metric(REQUESTS);
      send(router, workload(new Random(12), 30));
      assertThat(slow.metric(REQUESTS)).isEqualTo(slowServed);
      assertThat(fresh.metric(REQUESTS)).isEqualTo(30);
      awaitConverged(router, Map.of("72", fresh));
      assertThat(indexHolds(router, "71")).isFalse();
      assertThat(workerIds(router)).containsExactly("72");
    } finally {
      slow.close();
      fresh.close();
    }
  }

  @Test
  void natsEvents_aJoinedWorkerIsFollowedOnTheSharedSubject_andALeftOneIsForgotten()
      throws Exception {
    try (NatsServerProcess nats = NatsServerProcess.start()) {
      List<String> onNats = List.of("--event-plane", "nats", "--nats-server", nats.url());
      List<String> first = new ArrayList<>(onNats);
      first.addAll(List.of("--worker-id", "81"));
      List<String> second = new ArrayList<>(onNats);
      second.addAll(List.of("--worker-id", "82"));
      WorkerProcess w81 = natsWorker(first);
      WorkerProcess w82 = natsWorker(second);
      Map<String, List<String>> flags = KvConvergence.kvFlags();
      flags.put("event-plane", List.of("nats"));
      flags.put("nats-server", List.of(nats.url()));
      flags.put("worker", List.of(w81.workerSpec("81")));
      Random random = new Random(13);
      try (RouterFixture router = RouterFixture.start(flags)) {
        WorkerFleet fleet = router.app.fleet();
        fleet.join(WorkerSpec.parse(w82.workerSpec("82")));
        send(router, workload(random, 60));
        assertThat(w82.metric(REQUESTS)).isPositive();
        awaitConverged(router, Map.of("81", w81, "82", w82));

        fleet.leave("82");
        assertThat(indexHolds(router, "82")).isFalse();
        Awaitility.await()
            .atMost(Duration.ofSeconds(10))
            .untilAsserted(
                () ->
                    assertThat(Http.get(router.baseUrl + "/metrics").body())
                        .as("the follower forgot its ranks")
                        .doesNotContainPattern(
                            "kvrouter_kv_event_batches_total\\{[^}]*worker_id=\"82\""));
        double served = w82.metric(REQUESTS);
        send(router, workload(random, 30));
        assertThat(w82.metric(REQUESTS)).isEqualTo(served);
        awaitConverged(router, Map.of("81", w81));
        assertThat(indexHolds(router, "82")).isFalse();

        fleet.join(WorkerSpec.parse(w82.workerSpec("82")));
        send(router, workload(random, 60));
        awaitConverged(router, Map.of("81", w81, "82", w82));
      } finally {
        w81.close();
        w82.close();
      }
    }
  }

  /** A worker publishing Dynamo's events on NATS, with {@code options}. */
  private static WorkerProcess natsWorker(List<String> options) throws Exception {
    List<String> all = new ArrayList<>(options);
    all.addAll(
        List.of(
            "--port",
            "0",
            "--block-size",
            String.valueOf(KvConvergence.BLOCK_SIZE),
            "--num-gpu-blocks",
            String.valueOf(KvConvergence.KV_BLOCKS)));
    return WorkerProcess.start(KvConvergence.MODEL, 0, 0, all);
  }
}
