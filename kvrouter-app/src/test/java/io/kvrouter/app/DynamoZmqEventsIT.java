package io.kvrouter.app;

import static io.kvrouter.app.KvConvergence.awaitConverged;
import static io.kvrouter.app.KvConvergence.send;
import static io.kvrouter.app.KvConvergence.workload;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.testing.Http;
import io.kvrouter.testing.Prometheus;
import io.kvrouter.testing.WorkerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Worker processes publishing Dynamo's format on ZMQ ({@code --kv-events-format dynamo}: enveloped
 * msgpack on topic {@code kv-events}, load on {@code kv_metrics}, recovery answered over the
 * request plane) and a router following them with {@code events-format=dynamo}: the router's index
 * holds exactly what every worker's cache holds after 5% of events lost, a router restart and a
 * worker restart, and with data-parallel ranks.
 */
class DynamoZmqEventsIT {
  private static final String MODEL = KvConvergence.MODEL;

  private static WorkerProcess worker(String id, List<String> more) throws Exception {
    List<String> options =
        new ArrayList<>(
            List.of(
                "--kv-events-format",
                "dynamo",
                "--worker-id",
                id,
                "--block-size",
                String.valueOf(KvConvergence.BLOCK_SIZE),
                "--num-gpu-blocks",
                String.valueOf(KvConvergence.KV_BLOCKS)));
    options.addAll(more);
    return WorkerProcess.start(MODEL, 0, 0, options);
  }

  private static Map<String, List<String>> routerFlags(List<String> workerSpecs) {
    Map<String, List<String>> flags = KvConvergence.kvFlags();
    flags.put("worker", workerSpecs);
    return flags;
  }

  @Test
  void lossyEvents_routerRestart_workerRestart() throws Exception {
    List<String> lossy =
        List.of("--port", "0", "--kv-events-port", "0", "--kv-events-drop-rate", "0.05");
    WorkerProcess w51 = worker("51", lossy);
    WorkerProcess w52 = worker("52", lossy);
    Map<String, WorkerProcess> workers = new HashMap<>(Map.of("51", w51, "52", w52));
    Random random = new Random(7);
    try {
      assertThat(w51.workerSpec("51")).contains("events-format=dynamo", "kv-metrics=tcp://");
      Map<String, List<String>> flags =
          routerFlags(List.of(w51.workerSpec("51"), w52.workerSpec("52")));

      // (a) + (b): eviction, and 5% of the events lost on the way
      try (RouterFixture router = RouterFixture.start(flags)) {
        send(router, workload(random, 60));
        awaitConverged(router, workers);
        String metrics = Http.get(router.baseUrl + "/metrics").body();
        assertThat(Prometheus.sum(metrics, "kvrouter_kv_event_gaps_total"))
            .as("lost events were noticed")
            .isPositive();
        KvConvergence.awaitFollowingWithReportedLoad(router);
      }

      // (c) a new router learns every worker's state by asking at the endpoint of the publisher
      // that the worker's first envelope names: a v1.5 worker serves recovery nowhere else
      // (discovery would name it before any event)
      try (RouterFixture router = RouterFixture.start(flags)) {
        KvConvergence.sendUntilEveryWorkerServed(router, workers, random);
        awaitConverged(router, workers);
        String metrics = Http.get(router.baseUrl + "/metrics").body();
        assertThat(KvConvergence.perWorker(metrics, "kvrouter_kv_event_resets_total", "51"))
            .as("one tree dump per worker, over the request plane")
            .isEqualTo(1);
        send(router, workload(random, 30));
        awaitConverged(router, workers);

        // (d) a worker restarts on the same ports with an empty cache, its ids from 0 again
        w51.close();
        w51 =
            worker(
                "51",
                List.of(
                    "--port", String.valueOf(w51.port()),
                    "--kv-events-port", String.valueOf(w51.kvEventsPort()),
                    "--kv-metrics-port", String.valueOf(w51.kvMetricsPort()),
                    "--kv-events-drop-rate", "0.05"));
        workers.put("51", w51);
        WorkerProcess restarted = w51;
        Awaitility.await()
            .atMost(Duration.ofSeconds(15))
            .until(() -> KvConvergence.healthy(router, 0));
        send(router, workload(random, 40));
        assertThat(restarted.metric("dynamo_component_requests_total"))
            .as("the restarted worker served requests")
            .isPositive();
        awaitConverged(router, workers);
        metrics = Http.get(router.baseUrl + "/metrics").body();
        assertThat(KvConvergence.perWorker(metrics, "kvrouter_kv_event_resets_total", "51"))
            .as("the restart replaced what the rank held: once more")
            .isGreaterThanOrEqualTo(2);
      }
    } finally {
      w51.close();
      w52.close();
    }
  }

  @Test
  void dataParallelRanks_shareOneSocket_andEachConverges() throws Exception {
    WorkerProcess w61 =
        worker("61", List.of("--port", "0", "--kv-events-port", "0", "--data-parallel-size", "3"));
    Map<String, WorkerProcess> workers = new HashMap<>(Map.of("61", w61));
    try (RouterFixture router =
        RouterFixture.start(routerFlags(List.of(w61.workerSpec("61") + ",dp-size=3")))) {
      send(router, workload(new Random(9), 60));
      KvConvergence.awaitConvergedRanks(router, workers, 3);
    } finally {
      w61.close();
    }
  }
}
