package io.kvrouter.app;

import static io.kvrouter.app.KvConvergence.awaitConverged;
import static io.kvrouter.app.KvConvergence.send;
import static io.kvrouter.app.KvConvergence.workload;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.testing.FreePorts;
import io.kvrouter.testing.Http;
import io.kvrouter.testing.Prometheus;
import io.kvrouter.testing.WorkerProcess;
import io.kvrouter.worker.SimulatedEngine;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * {@code --router-mode kv} following the workers' own KV cache events (vLLM's ZMQ format): after
 * each scenario the router's index holds exactly the blocks each simulated worker rank caches,
 * compared block by block by {@link KvConvergence}.
 */
class KvEventsIT {
  private static final String RESETS = "kvrouter_kv_event_resets_total";

  /** The resets of one rank, from the router's metrics. */
  private static double resets(RouterFixture router, WorkerRank rank) throws Exception {
    return Prometheus.sum(
        Http.get(router.baseUrl + "/metrics").body(),
        RESETS,
        Map.of("worker_id", rank.workerId(), "dp_rank", String.valueOf(rank.dpRank())));
  }

  @Test
  void inProcessWorkers_theIndexMatchesEveryCacheThroughEvictions() throws Exception {
    Map<String, List<String>> flags = KvConvergence.kvFlags();
    flags.put("mock-workers", List.of("2"));
    flags.put("mock-num-gpu-blocks", List.of(String.valueOf(KvConvergence.KV_BLOCKS)));
    flags.put("mock-ttft-ms", List.of("0"));
    flags.put("mock-itl-ms", List.of("0"));
    try (RouterFixture router = RouterFixture.start(flags)) {
      send(router, workload(new Random(1), 60));

      Map<WorkerRank, KvConvergence.Cache> caches = new HashMap<>();
      List<SimulatedEngine> engines = router.app.mockEngines();
      for (int i = 0; i < engines.size(); i++) {
        SimulatedEngine engine = engines.get(i);
        caches.put(
            WorkerRank.of(EventPlane.mockWorkerId(i)),
            () -> KvConvergence.blocksOf(engine.kvCache().snapshot()));
      }
      KvConvergence.awaitIndexEquals(router, caches);
      String metrics = Http.get(router.baseUrl + "/metrics").body();
      assertThat(metrics.lines())
          .as("evictions reached the index")
          .anyMatch(
              l ->
                  l.startsWith(
                          "dynamo_kvrouter_kv_cache_events_applied_total{event_type=\"removed\",status=\"ok\"}")
                      && !l.endsWith(" 0.0"));
      assertThat(Prometheus.sum(metrics, "kvrouter_router_overlap_blocks_sum"))
          .as("requests were routed to cached prefixes")
          .isPositive();
      for (int i = 0; i < engines.size(); i++) {
        assertThat(resets(router, WorkerRank.of(EventPlane.mockWorkerId(i))))
            .as("one reset each, at the start")
            .isEqualTo(1);
      }
    }
  }

  /** A worker process publishing events with 5% of batches lost on the wire. */
  private static WorkerProcess lossyWorker(List<String> ports) throws Exception {
    List<String> options = new ArrayList<>(ports);
    options.addAll(
        List.of(
            "--block-size", String.valueOf(KvConvergence.BLOCK_SIZE),
            "--num-gpu-blocks", String.valueOf(KvConvergence.KV_BLOCKS),
            "--kv-events-drop-rate", "0.05"));
    return WorkerProcess.start(KvConvergence.MODEL, 0, 0, options);
  }

  @Test
  void workerProcesses_lossyEvents_routerRestart_workerRestart() throws Exception {
    WorkerProcess w1 =
        lossyWorker(List.of("--port", "0", "--kv-events-port", "0", "--kv-replay-port", "0"));
    WorkerProcess w2 =
        lossyWorker(List.of("--port", "0", "--kv-events-port", "0", "--kv-replay-port", "0"));
    Map<String, WorkerProcess> workers = new HashMap<>(Map.of("w1", w1, "w2", w2));
    Random random = new Random(2);
    try {
      Map<String, List<String>> flags = KvConvergence.kvFlags();
      flags.put("worker", List.of(w1.workerSpec("w1"), w2.workerSpec("w2")));

      // (b) 5% of event batches lost: gaps are replayed
      try (RouterFixture router = RouterFixture.start(flags)) {
        send(router, workload(random, 60));
        awaitConverged(router, workers);
        String metrics = Http.get(router.baseUrl + "/metrics").body();
        assertThat(Prometheus.sum(metrics, "kvrouter_kv_event_gaps_total"))
            .as("lost batches were noticed")
            .isPositive();
        assertThat(Prometheus.sum(metrics, "kvrouter_kv_event_replayed_batches_total"))
            .as("and replayed")
            .isPositive();
        assertThat(Prometheus.sum(metrics, RESETS))
            .as("a gap is replayed, never a reason to reset: one reset per worker, at the start")
            .isEqualTo(2);
        JsonArray statuses =
            Http.get(router.baseUrl + "/router/workers").json().getJsonArray("workers");
        for (int i = 0; i < statuses.size(); i++) {
          JsonObject feed = statuses.getJsonObject(i).getJsonObject("kv_events");
          assertThat(feed.getString("state")).isEqualTo("following");
          assertThat(feed.getLong("batches")).isPositive();
          assertThat(feed.getLong("ms_since_last_batch")).isNotNegative();
        }
      }

      // (c) a new router rebuilds every worker's state from the replay buffers
      try (RouterFixture router = RouterFixture.start(flags)) {
        awaitConverged(router, workers);
        send(router, workload(random, 30));
        awaitConverged(router, workers);
        assertThat(resets(router, WorkerRank.of("w1"))).as("w1, at the start").isEqualTo(1);

        // (d) a worker restarts on the same ports with an empty cache and counts from 0 again
        List<String> samePorts =
            List.of(
                "--port", String.valueOf(w1.port()),
                "--kv-events-port", String.valueOf(w1.kvEventsPort()),
                "--kv-replay-port", String.valueOf(w1.kvReplayPort()));
        w1.close();
        w1 = lossyWorker(samePorts);
        workers.put("w1", w1);
        WorkerProcess restarted = w1;
        Awaitility.await()
            .atMost(Duration.ofSeconds(15))
            .until(() -> KvConvergence.healthy(router, 0));
        send(router, workload(random, 40));
        assertThat(restarted.metric("dynamo_component_requests_total"))
            .as("the restarted worker served requests")
            .isPositive();
        awaitConverged(router, workers);
        assertThat(resets(router, WorkerRank.of("w1")))
            .as("w1's restart reset its rank once more")
            .isEqualTo(2);
        assertThat(resets(router, WorkerRank.of("w2"))).as("w2 untouched").isEqualTo(1);
      }
    } finally {
      w1.close();
      w2.close();
    }
  }

  @Test
  void dataParallelRanks_eachRankIsFollowedOnItsOwnPorts_andRoutedTo() throws Exception {
    int dpSize = 3;
    int base = FreePorts.consecutive(2 * dpSize);
    WorkerProcess worker =
        WorkerProcess.start(
            KvConvergence.MODEL,
            0,
            0,
            List.of(
                "--port", "0",
                "--kv-events-port", String.valueOf(base),
                "--kv-replay-port", String.valueOf(base + dpSize),
                "--data-parallel-size", String.valueOf(dpSize),
                "--block-size", String.valueOf(KvConvergence.BLOCK_SIZE),
                "--num-gpu-blocks", String.valueOf(KvConvergence.KV_BLOCKS)));
    try {
      Map<String, List<String>> flags = KvConvergence.kvFlags();
      flags.put("worker", List.of(worker.workerSpec("w3") + ",dp-size=" + dpSize));
      try (RouterFixture router = RouterFixture.start(flags)) {
        send(router, workload(new Random(5), 60));
        KvConvergence.awaitConvergedRanks(router, Map.of("w3", worker), dpSize);
        for (int dp = 0; dp < dpSize; dp++) {
          assertThat(resets(router, new WorkerRank("w3", dp)))
              .as("rank " + dp + ": one reset, at the start")
              .isEqualTo(1);
        }
      }
    } finally {
      worker.close();
    }
  }
}
