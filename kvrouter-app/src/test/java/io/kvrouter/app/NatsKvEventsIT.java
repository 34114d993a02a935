package io.kvrouter.app;

import static io.kvrouter.app.KvConvergence.awaitConverged;
import static io.kvrouter.app.KvConvergence.send;
import static io.kvrouter.app.KvConvergence.workload;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.dynamo.EventEnvelope;
import io.kvrouter.protocol.dynamo.EventEnvelopeCodec;
import io.kvrouter.testing.Http;
import io.kvrouter.testing.NatsServerProcess;
import io.kvrouter.testing.Prometheus;
import io.kvrouter.testing.WorkerProcess;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.LongStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Worker processes publish Dynamo KV events on a real nats-server (started here, on loopback); a
 * router follows them with {@code --event-plane nats}. After each story the router's index holds
 * exactly what every worker's cache holds (compared block by block through a dump of the index and
 * the workers' {@code /kv/state}): 5% of events lost, a router restart, a worker restart, the NATS
 * server killed and restarted while requests keep being answered, and the durable mode.
 */
class NatsKvEventsIT {
  private static final String MODEL = KvConvergence.MODEL;

  private static WorkerProcess worker(NatsServerProcess nats, String id, List<String> more)
      throws Exception {
    List<String> options =
        new ArrayList<>(
            List.of(
                "--event-plane",
                "nats",
                "--nats-server",
                nats.url(),
                "--worker-id",
                id,
                "--block-size",
                String.valueOf(KvConvergence.BLOCK_SIZE)));
    if (!more.contains("--num-gpu-blocks")) {
      options.addAll(List.of("--num-gpu-blocks", String.valueOf(KvConvergence.KV_BLOCKS)));
    }
    options.addAll(more);
    return WorkerProcess.start(MODEL, 0, 0, options);
  }

  private static Map<String, List<String>> routerFlags(
      NatsServerProcess nats, List<String> workerSpecs, String... more) {
    Map<String, List<String>> flags = KvConvergence.kvFlags();
    flags.put("event-plane", List.of("nats"));
    flags.put("nats-server", List.of(nats.url()));
    flags.put("worker", workerSpecs);
    for (int i = 0; i < more.length; i += 2) {
      flags.put(more[i], List.of(more[i + 1]));
    }
    return flags;
  }

  @Test
  void lossyEvents_routerRestart_workerRestart_natsRestartUnderTraffic() throws Exception {
    try (NatsServerProcess nats = NatsServerProcess.start()) {
      List<String> lossy = List.of("--port", "0", "--kv-events-drop-rate", "0.05");
      WorkerProcess w11 = worker(nats, "11", lossy);
      WorkerProcess w12 = worker(nats, "12", lossy);
      Map<String, WorkerProcess> workers = new HashMap<>(Map.of("11", w11, "12", w12));
      Random random = new Random(3);
      try {
        Map<String, List<String>> flags =
            routerFlags(nats, List.of(w11.workerSpec("11"), w12.workerSpec("12")));

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
          assertThat(KvConvergence.perWorker(metrics, "kvrouter_kv_event_resets_total", "11"))
              .as("one tree dump per worker")
              .isEqualTo(1);
          send(router, workload(random, 30));
          awaitConverged(router, workers);

          // (d) a worker restarts with an empty cache and counts its events from 0 again
          w11.close();
          w11 =
              worker(
                  nats,
                  "11",
                  List.of("--port", String.valueOf(w11.port()), "--kv-events-drop-rate", "0.05"));
          workers.put("11", w11);
          WorkerProcess restarted = w11;
          Awaitility.await()
              .atMost(Duration.ofSeconds(15))
              .until(() -> KvConvergence.healthy(router, 0));
          send(router, workload(random, 40));
          assertThat(restarted.metric("dynamo_component_requests_total"))
              .as("the restarted worker served requests")
              .isPositive();
          awaitConverged(router, workers);
          metrics = Http.get(router.baseUrl + "/metrics").body();
          assertThat(KvConvergence.perWorker(metrics, "kvrouter_kv_event_resets_total", "11"))
              .as("the restart replaced what the rank held: once more")
              .isEqualTo(2);

          // (e) NATS dies and comes back while requests keep coming
          Traffic traffic = Traffic.start(router, workload(random, 1000));
          traffic.awaitMore(10);
          nats.stop();
          traffic.awaitMore(20);
          nats.restart();
          traffic.awaitMore(20);
          traffic.stop(); // every request was answered with 200, or this throws
          awaitConverged(router, workers);
          // after the reconnect every worker is asked for its state again; the first questions
          // may find a worker not yet reconnected, and are asked again (up to 5 s apart)
          Awaitility.await()
              .atMost(Duration.ofSeconds(20))
              .untilAsserted(
                  () ->
                      assertThat(
                              KvConvergence.perWorker(
                                  Http.get(router.baseUrl + "/metrics").body(),
                                  "kvrouter_kv_event_resets_total",
                                  "12"))
                          .as("after the reconnect every worker was asked for its state again")
                          .isGreaterThanOrEqualTo(2));
          awaitConverged(router, workers);
        }
      } finally {
        w11.close();
        w12.close();
      }
    }
  }

  @Test
  void durableEvents_publishedWhileTheRouterIsAway_areDeliveredWhenItIsBack() throws Exception {
    try (NatsServerProcess nats = NatsServerProcess.startWithJetStream()) {
      // JetStream carries only Dynamo v1.4's JSON form
      WorkerProcess w21 =
          worker(
              nats,
              "21",
              List.of("--port", "0", "--durable-kv-events", "--nats-event-format", "json"));
      Map<String, WorkerProcess> workers = new HashMap<>(Map.of("21", w21));
      Random random = new Random(4);
      try {
        Map<String, List<String>> flags =
            routerFlags(
                nats,
                List.of(w21.workerSpec("21")),
                "durable-kv-events",
                "true",
                "durable-consumer",
                "router-a",
                "nats-event-format",
                "json");
        try (RouterFixture router = RouterFixture.start(flags)) {
          send(router, workload(random, 40));
          awaitConverged(router, workers);
        }
        // the router is away; the worker keeps serving (straight over the request plane)
        Map<String, List<String>> direct = KvConvergence.kvFlags();
        direct.put("worker", List.of(w21.workerSpec("21")));
        direct.put("kv-events", List.of("false"));
        try (RouterFixture other = RouterFixture.start(direct)) {
          send(other, workload(random, 30));
        }
        try (RouterFixture router = RouterFixture.start(flags)) {
          awaitConverged(router, workers);
          String metrics = Http.get(router.baseUrl + "/metrics").body();
          assertThat(
                  Prometheus.sum(metrics, "kvrouter_kv_event_batches_total")
                      + Prometheus.sum(metrics, "kvrouter_kv_event_duplicates_total"))
              .as("the stream delivered what was published while the router was away")
              .isPositive();
        }
      } finally {
        w21.close();
      }
    }
  }

  @Test
  void aTreeDumpOfSeveralMegabytes_reachesANewRouterOverTheRequestPlane() throws Exception {
    try (NatsServerProcess nats = NatsServerProcess.start()) {
      int capacity = 16_384;
      WorkerProcess w41 =
          worker(nats, "41", List.of("--port", "0", "--num-gpu-blocks", String.valueOf(capacity)));
      Map<String, WorkerProcess> workers = Map.of("41", w41);
      Random random = new Random(5);
      try {
        // fill the cache with no router following: only a tree dump can tell a router about it
        Map<String, List<String>> direct = KvConvergence.kvFlags();
        direct.put("worker", List.of(w41.workerSpec("41")));
        direct.put("kv-events", List.of("false"));
        try (RouterFixture other = RouterFixture.start(direct)) {
          List<String> prompts = new ArrayList<>();
          for (int i = 0; i < 40; i++) {
            prompts.add(KvConvergence.letters(random, 4_000));
          }
          send(other, prompts);
        }
        int cached = KvConvergence.blocksOf(w41.kvState()).size();
        // a stored block is over 150 bytes of RouterEvent JSON: the dump is megabytes, more than
        // NATS's 1 MB max_payload would carry, as one item of the query's response stream
        assertThat(cached * 150L).isGreaterThan(1024 * 1024);

        try (RouterFixture router =
            RouterFixture.start(routerFlags(nats, List.of(w41.workerSpec("41"))))) {
          // the dump is at the endpoint of the publisher that the worker's envelopes name, so
          // requests make events until one has reached the router (its NATS subscription may not
          // be up yet for the first) and the worker's rank is followed
          Awaitility.await()
              .atMost(Duration.ofSeconds(90))
              .pollInterval(Duration.ofMillis(500))
              .until(
                  () -> {
                    send(router, List.of(KvConvergence.letters(random, 200)));
                    return eventsFollowed(router, "41");
                  });
          awaitConverged(router, workers);
          assertThat(
                  KvConvergence.perWorker(
                      Http.get(router.baseUrl + "/metrics").body(),
                      "kvrouter_kv_event_resets_total",
                      "41"))
              .as("one tree dump")
              .isEqualTo(1);
        }
      } finally {
        w41.close();
      }
    }
  }

  @Test
  void aWorkersEventsAndLoad_goOutAsDynamo15Envelopes_onItsEndpointsSubjects() throws Exception {
    try (NatsServerProcess nats = NatsServerProcess.start();
        Connection raw = Nats.connect(nats.url())) {
      String prefix = "namespace.dynamo.component.backend.";
      List<Message> messages = new CopyOnWriteArrayList<>();
      Dispatcher dispatcher = raw.createDispatcher(messages::add);
      dispatcher.subscribe(prefix + ">");
      raw.flush(Duration.ofSeconds(5));
      WorkerProcess w61 = worker(nats, "61", List.of("--port", "0", "--data-parallel-size", "2"));
      try {
        Map<String, List<String>> direct = KvConvergence.kvFlags();
        direct.put("worker", List.of(w61.workerSpec("61") + ",dp-size=2"));
        direct.put("kv-events", List.of("false"));
        try (RouterFixture other = RouterFixture.start(direct)) {
          send(other, workload(new Random(6), 20));
        }
        String events = prefix + "endpoint.generate.kv-events";
        String loads = prefix + "endpoint.generate.kv_metrics";
        Awaitility.await()
            .atMost(Duration.ofSeconds(15))
            .until(
                () ->
                    messages.stream().anyMatch(m -> m.getSubject().equals(events))
                        && messages.stream().anyMatch(m -> m.getSubject().equals(loads)));
        assertThat(messages)
            .as("nothing on Dynamo v1.4's subjects")
            .allMatch(m -> m.getSubject().equals(events) || m.getSubject().equals(loads));

        Map<Long, List<Long>> sequences = new HashMap<>();
        Map<Long, Integer> ranks = new HashMap<>();
        for (Message m : messages) {
          // the whole NATS message is the msgpack envelope: no frame header, unlike ZMQ
          EventEnvelope envelope = EventEnvelopeCodec.decodeEnvelope(m.getData());
          assertThat(envelope.publisherId())
              .isBetween(0L, EventEnvelope.MAX_JSON_SAFE_PUBLISHER_ID);
          if (m.getSubject().equals(events)) {
            sequences
                .computeIfAbsent(envelope.publisherId(), id -> new ArrayList<>())
                .add(envelope.sequence());
            assertThat(envelope.topic()).isEqualTo("kv-events");
            for (DynamoRouterEvent event : DynamoMsgpackCodec.decodePayload(envelope.payload())) {
              assertThat(event.event().worker().workerId()).isEqualTo("61");
              Integer before = ranks.put(envelope.publisherId(), event.event().worker().dpRank());
              assertThat(before)
                  .as("one publisher per rank")
                  .isIn(null, event.event().worker().dpRank());
            }
          } else {
            assertThat(envelope.topic()).isEqualTo("kv_metrics");
            assertThat(DynamoMsgpackCodec.decodeLoad(envelope.payload()).rank().workerId())
                .isEqualTo("61");
          }
        }
        assertThat(ranks.values()).as("both ranks published").containsExactlyInAnyOrder(0, 1);
        sequences.forEach(
            (publisher, seen) ->
                assertThat(seen)
                    .as("event publisher %x counts its messages from 0", publisher)
                    .isEqualTo(LongStream.range(0, seen.size()).boxed().toList()));
      } finally {
        w61.close();
      }
    }
  }

  /** Whether {@code /router/workers} says the worker's KV events are followed in sequence. */
  private static boolean eventsFollowed(RouterFixture router, String workerId) throws Exception {
    return Http.get(router.baseUrl + "/router/workers").json().getJsonArray("workers").stream()
        .map(JsonObject.class::cast)
        .filter(w -> w.getString("worker_id").equals(workerId))
        .anyMatch(
            w ->
                w.getJsonObject("kv_events") != null
                    && "following".equals(w.getJsonObject("kv_events").getString("state")));
  }

  @Test
  void dataParallelRanks_eachRankIsRoutedTo_andFollowedOnItsOwn() throws Exception {
    try (NatsServerProcess nats = NatsServerProcess.start()) {
      WorkerProcess w31 = worker(nats, "31", List.of("--port", "0", "--data-parallel-size", "3"));
      Map<String, WorkerProcess> workers = new HashMap<>(Map.of("31", w31));
      try (RouterFixture router =
          RouterFixture.start(routerFlags(nats, List.of(w31.workerSpec("31") + ",dp-size=3")))) {
        send(router, workload(new Random(5), 60));
        KvConvergence.awaitConvergedRanks(router, workers, 3);
        JsonObject explained =
            Http.postJson(
                    router.baseUrl + "/router/explain",
                    new JsonObject().put("model", MODEL).put("prompt", "hello"))
                .json();
        assertThat(explained.getJsonArray("workers").size()).as("one cost per rank").isEqualTo(3);
      } finally {
        w31.close();
      }
    }
  }
}
