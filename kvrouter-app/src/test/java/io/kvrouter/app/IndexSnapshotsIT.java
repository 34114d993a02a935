package io.kvrouter.app;

import static io.kvrouter.app.KvConvergence.awaitConverged;
import static io.kvrouter.app.KvConvergence.send;
import static io.kvrouter.app.KvConvergence.workload;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.KafkaConfig;
import io.kvrouter.events.IndexSnapshotStore;
import io.kvrouter.events.kafka.KafkaSnapshotStore;
import io.kvrouter.events.nats.NatsSnapshotStore;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.testing.Http;
import io.kvrouter.testing.KafkaBroker;
import io.kvrouter.testing.NatsServerProcess;
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
 * {@code --router-index-snapshots} with worker processes and routers in this JVM, on a real
 * nats-server with JetStream and on a real Kafka broker: a router of the fleet writes snapshots of
 * its index; a router started later loads the newest, asks each worker only for the events after it
 * (no tree dump), and its index then equals the workers' caches block by block; a router started
 * with {@code --router-reset-states} deletes the snapshot and asks every worker for its state.
 */
class IndexSnapshotsIT {
  private static final String MODEL = KvConvergence.MODEL;
  private static final String SNAPSHOT = "dynamo.backend.generate/" + MODEL;

  @Test
  void onNats_aRouterStartsFromTheFleetsSnapshot() throws Exception {
    try (NatsServerProcess nats = NatsServerProcess.startWithJetStream()) {
      List<String> plane = List.of("--event-plane", "nats", "--nats-server", nats.url());
      Map<String, List<String>> flags = KvConvergence.kvFlags();
      flags.put("event-plane", List.of("nats"));
      flags.put("nats-server", List.of(nats.url()));
      story(plane, flags, () -> NatsSnapshotStore.connect(nats.server(), Duration.ofSeconds(30)));
    }
  }

  @Test
  void onKafka_aRouterStartsFromTheFleetsSnapshot_andTheLogsOffsets() throws Exception {
    try (KafkaBroker kafka = KafkaBroker.start()) {
      List<String> plane =
          List.of("--event-plane", "kafka", "--kafka-bootstrap-servers", kafka.bootstrapServers());
      Map<String, List<String>> flags = KvConvergence.kvFlags();
      flags.put("event-plane", List.of("kafka"));
      flags.put("kafka-bootstrap-servers", List.of(kafka.bootstrapServers()));
      KafkaConfig config = new KafkaConfig(kafka.bootstrapServers(), "kvrouter", null);
      story(plane, flags, () -> KafkaSnapshotStore.connect(config, Duration.ofSeconds(30)));
    }
  }

  /** Opens the plane's snapshot store, to look at it from outside the routers. */
  private interface Store {
    IndexSnapshotStore open() throws Exception;
  }

  private static void story(List<String> plane, Map<String, List<String>> planeFlags, Store store)
      throws Exception {
    Map<String, WorkerProcess> workers = new HashMap<>();
    try {
      List<String> specs = new ArrayList<>();
      for (String id : List.of("41", "42")) {
        List<String> options = new ArrayList<>(plane);
        options.addAll(
            List.of(
                "--port",
                "0",
                "--worker-id",
                id,
                "--block-size",
                String.valueOf(KvConvergence.BLOCK_SIZE)));
        WorkerProcess worker = WorkerProcess.start(MODEL, 0, 0, options);
        workers.put(id, worker);
        specs.add(worker.workerSpec(id));
      }
      Map<String, List<String>> flags = new HashMap<>(planeFlags);
      flags.put("worker", specs);
      flags.put("router-index-snapshots", List.of("true"));
      flags.put("router-snapshot-threshold", List.of("10"));
      Random random = new Random(11);

      RouterFixture a = RouterFixture.start(flags);
      try {
        KvConvergence.sendUntilEveryWorkerServed(a, workers, random);
        awaitConverged(a, workers);
        // a snapshot taken once every rank's position is known
        double written = snapshots(a, "written");
        send(a, workload(random, 30));
        Awaitility.await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> snapshots(a, "written") > written);
        // events the snapshot does not hold, which the next router must ask for
        send(a, workload(random, 30));
        awaitConverged(a, workers);

        try (RouterFixture b = RouterFixture.start(flags)) {
          assertThat(snapshots(b, "restored")).isEqualTo(1);
          awaitConverged(b, workers);
          assertThat(questions(b, "tree_dump")).as("no worker was asked for its state").isZero();
          assertThat(questions(b, "events"))
              .as("each rank asked for what came after the snapshot")
              .isGreaterThanOrEqualTo(2);
        }
      } finally {
        a.close(); // no router writes snapshots from here on
      }

      Map<String, List<String>> reset = new HashMap<>(flags);
      reset.put("router-reset-states", List.of("true"));
      reset.put("router-snapshot-threshold", List.of(String.valueOf(1 << 30)));
      try (IndexSnapshotStore outside = store.open()) {
        assertThat(outside.load(SNAPSHOT)).isPresent();
        try (RouterFixture c = RouterFixture.start(reset)) {
          assertThat(snapshots(c, "restored")).isZero();
          assertThat(outside.load(SNAPSHOT)).as("deleted").isEmpty();
          // a Dynamo v1.5 worker is asked for its state once a router has heard it publish
          KvConvergence.sendUntilEveryWorkerServed(c, workers, random);
          awaitConverged(c, workers);
          assertThat(questions(c, "tree_dump"))
              .as("each rank asked for its state")
              .isGreaterThanOrEqualTo(2);
        }
      }
    } finally {
      for (WorkerProcess worker : workers.values()) {
        worker.close();
      }
    }
  }

  private static double snapshots(RouterFixture router, String outcome) throws Exception {
    return Prometheus.sum(
        Http.get(router.baseUrl + "/metrics").body(),
        MetricNames.INDEX_SNAPSHOTS + "_total",
        Map.of(MetricNames.TAG_OUTCOME, outcome));
  }

  private static double questions(RouterFixture router, String kind) throws Exception {
    return Prometheus.sum(
        Http.get(router.baseUrl + "/metrics").body(),
        MetricNames.KV_EVENT_RECOVERY_QUERIES + "_total",
        Map.of(MetricNames.TAG_KIND, kind));
  }
}
