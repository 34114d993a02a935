package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent.AddRequest;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent.Free;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent.MarkPrefillCompleted;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent.PrefillLoadHint;
import io.kvrouter.protocol.dynamo.ActiveSequenceEventCodec;
import io.kvrouter.protocol.dynamo.EventEnvelope;
import io.kvrouter.protocol.dynamo.EventEnvelopeCodec;
import io.kvrouter.testing.Http;
import io.kvrouter.testing.NatsServerProcess;
import io.kvrouter.testing.Prometheus;
import io.kvrouter.testing.WorkerProcess;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Nats;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code --router-replica-sync} on a real nats-server, with two worker processes and three routers
 * in this JVM: A and B share their books, C does not. A request in flight through A is load on B's
 * books as well (and never on C's), and is gone from both once it ends; the messages on the wire
 * are Dynamo's {@code ActiveSequenceEvent}s on the endpoint's subject; and B books what another
 * router (Dynamo's, with an id of its own) publishes there.
 */
class ReplicaSyncIT {
  private static final String MODEL = KvConvergence.MODEL;
  private static final String SUBJECT =
      "namespace.dynamo.component.backend.endpoint.generate.active_sequences_events";

  private static NatsServerProcess nats;
  private static final List<WorkerProcess> workers = new ArrayList<>();
  private static RouterFixture a;
  private static RouterFixture b;
  private static RouterFixture c;

  @BeforeAll
  static void startFleet() throws Exception {
    nats = NatsServerProcess.start();
    List<String> specs = new ArrayList<>();
    for (String id : List.of("11", "12")) {
      // slow tokens: a request stays in flight until its client goes away
      WorkerProcess worker =
          WorkerProcess.start(
              MODEL,
              0,
              200,
              List.of(
                  "--port",
                  "0",
                  "--event-plane",
                  "nats",
                  "--nats-server",
                  nats.url(),
                  "--worker-id",
                  id,
                  "--block-size",
                  String.valueOf(KvConvergence.BLOCK_SIZE)));
      workers.add(worker);
      specs.add(worker.workerSpec(id));
    }
    a = RouterFixture.start(flags(specs, true));
    b = RouterFixture.start(flags(specs, true));
    c = RouterFixture.start(flags(specs, false));
  }

  private static Map<String, List<String>> flags(List<String> workerSpecs, boolean sync) {
    Map<String, List<String>> flags = KvConvergence.kvFlags();
    flags.put("event-plane", List.of("nats"));
    flags.put("nats-server", List.of(nats.url()));
    flags.put("worker", workerSpecs);
    flags.put("router-replica-sync", List.of(String.valueOf(sync)));
    return flags;
  }

  @AfterAll
  static void stopFleet() throws Exception {
    for (AutoCloseable part : new AutoCloseable[] {a, b, c}) {
      if (part != null) {
        part.close();
      }
    }
    for (WorkerProcess worker : workers) {
      worker.close();
    }
    if (nats != null) {
      nats.close();
    }
  }

  @Test
  void aRequestInFlightThroughOneRouter_isLoadInTheBooksOfEveryRouterThatSyncs() throws Exception {
    double receivedBefore = received(b);
    List<ActiveSequenceEvent> wire = new CopyOnWriteArrayList<>();
    try (Connection tap = Nats.connect(nats.url())) {
      Dispatcher dispatcher =
          tap.createDispatcher(message -> wire.add(NatsReplicaSync.decode(message.getData())));
      dispatcher.subscribe(SUBJECT);
      tap.flush(Duration.ofSeconds(10));

      String prompt = "replica sync keeps the books of a fleet of routers alike ".repeat(4);
      String body =
          new JsonObject()
              .put("model", MODEL)
              .put("prompt", prompt)
              .put("max_tokens", 1000)
              .put("stream", true)
              .encode();
      JsonObject onA;
      try (Socket client = Http.openPost(a.app.httpPort(), "/v1/completions", body)) {
        awaitFirstToken(client);
        onA = busyWorker(a);
        assertThat(onA.getLong("active_blocks")).isPositive();
        String workerId = onA.getString("worker_id");
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () -> {
                  JsonObject onB = worker(b, workerId);
                  assertThat(onB.getLong("active_blocks"))
                      .as("B books A's request on the same worker")
                      .isEqualTo(onA.getLong("active_blocks"));
                  assertThat(onB.getLong("active_prefill_tokens"))
                      .as("its first token came: its prefill is done on B too")
                      .isZero();
                });
        assertThat(worker(c, workerId).getLong("active_blocks"))
            .as("C keeps its own books")
            .isZero();
      }
      // the client left: A frees the request, and so does B
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                assertThat(totalActiveBlocks(a)).isZero();
                assertThat(totalActiveBlocks(b)).isZero();
              });

      // on the wire: the request's three changes, in order, from one router, on the worker
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(wire).hasSize(3));
      ActiveSequenceEvent add = wire.get(0);
      assertThat(add.data()).isInstanceOf(AddRequest.class);
      AddRequest booked = (AddRequest) add.data();
      assertThat(booked.tokenSequence()).hasSize((int) onA.getLong("active_blocks").longValue());
      assertThat(booked.trackPrefillTokens()).isTrue();
      assertThat(booked.prefillLoadHint().initialEffectivePrefillTokens()).isPositive();
      assertThat(add.worker()).isEqualTo(new WorkerRank(onA.getString("worker_id"), 0));
      assertThat(wire.get(1).data()).isEqualTo(MarkPrefillCompleted.INSTANCE);
      assertThat(wire.get(2).data()).isEqualTo(Free.INSTANCE);
      assertThat(wire)
          .allSatisfy(
              event -> {
                assertThat(event.requestId()).isEqualTo(add.requestId());
                assertThat(event.routerId()).isEqualTo(add.routerId());
                assertThat(event.worker()).isEqualTo(add.worker());
              });
    }
    assertThat(received(b) - receivedBefore).as("B applied A's three events").isEqualTo(3);
  }

  private static double received(RouterFixture router) throws Exception {
    return Prometheus.sum(
        Http.get(router.baseUrl + "/metrics").body(),
        "kvrouter_replica_sync_events_total",
        Map.of("direction", "received"));
  }

  @Test
  void anotherRoutersEvents_areBookedUntilItsFree() throws Exception {
    long dynamoRouter = 7_587_889_768_449_523_845L;
    WorkerRank rank = new WorkerRank("12", 0);
    try (Connection peer = Nats.connect(nats.url())) {
      long[] blocks = {101, 102, 103, 104, 105};
      publish(
          peer,
          0,
          new ActiveSequenceEvent(
              "dynamo-request-1",
              rank,
              new AddRequest(blocks, true, 5L, new PrefillLoadHint(300, null)),
              dynamoRouter,
              null,
              null));
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                JsonObject onB = worker(b, "12");
                assertThat(onB.getLong("active_blocks")).isEqualTo(5);
                assertThat(onB.getLong("active_prefill_tokens")).isEqualTo(300);
              });
      assertThat(worker(c, "12").getLong("active_blocks")).isZero();

      publish(
          peer,
          1,
          new ActiveSequenceEvent(
              "dynamo-request-1", rank, MarkPrefillCompleted.INSTANCE, dynamoRouter, null, null));
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                JsonObject onB = worker(b, "12");
                assertThat(onB.getLong("active_prefill_tokens")).isZero();
                assertThat(onB.getLong("active_blocks")).isEqualTo(5);
              });

      publish(
          peer,
          2,
          new ActiveSequenceEvent(
              "dynamo-request-1", rank, Free.INSTANCE, dynamoRouter, null, null));
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(worker(b, "12").getLong("active_blocks")).isZero());
    }
  }

  private static void publish(Connection peer, long sequence, ActiveSequenceEvent event)
      throws Exception {
    peer.publish(
        SUBJECT,
        EventEnvelopeCodec.encodeEnvelope(
            new EventEnvelope(
                99,
                sequence,
                System.currentTimeMillis(),
                ActiveSequenceEventCodec.TOPIC,
                ActiveSequenceEventCodec.encode(event))));
    peer.flush(Duration.ofSeconds(10));
  }

  /** Reads the streamed response until its first token's event. */
  private static void awaitFirstToken(Socket client) throws Exception {
    client.setSoTimeout(60_000);
    BufferedReader lines =
        new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
    for (String line = lines.readLine(); ; line = lines.readLine()) {
      assertThat(line).as("the stream ended before its first token").isNotNull();
      if (line.startsWith("data: {")) {
        return;
      }
    }
  }

  private static List<JsonObject> workersOf(RouterFixture router) throws Exception {
    JsonObject status = new JsonObject(Http.get(router.baseUrl + "/router/workers").body());
    List<JsonObject> all = new ArrayList<>();
    status.getJsonArray("workers").forEach(w -> all.add((JsonObject) w));
    return all;
  }

  private static JsonObject worker(RouterFixture router, String id) throws Exception {
    return workersOf(router).stream()
        .filter(w -> w.getString("worker_id").equals(id))
        .findFirst()
        .orElseThrow();
  }

  /** The one worker with active blocks in {@code router}'s books. */
  private static JsonObject busyWorker(RouterFixture router) throws Exception {
    List<JsonObject> busy =
        workersOf(router).stream().filter(w -> w.getLong("active_blocks") > 0).toList();
    assertThat(busy).hasSize(1);
    return busy.get(0);
  }

  private static long totalActiveBlocks(RouterFixture router) throws Exception {
    return workersOf(router).stream().mapToLong(w -> w.getLong("active_blocks")).sum();
  }
}
