package io.kvrouter.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.events.nats.NatsConnection;
import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.InvalidRequestException;
import io.kvrouter.protocol.PayloadCodec;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.kvrouter.testing.NatsServerProcess;
import io.kvrouter.transport.JsonEndpoint;
import io.kvrouter.transport.RequestPlane;
import io.kvrouter.transport.nats.NatsRequestSubjects;
import io.kvrouter.transport.nats.NatsTransport;
import io.kvrouter.transport.nats.NatsWorkerServer;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Dynamo's NATS request plane end to end against a real nats-server: the request goes to the
 * worker's subject, the response comes back over the TCP call-home path, in either payload codec.
 */
@ExtendWith(VertxExtension.class)
class NatsCarrierEndToEndTest {
  private static final long INSTANCE = 0x7587;

  private Vertx vertx;
  private NatsServerProcess nats;
  private NatsConnection workerNats;
  private NatsConnection routerNats;
  private CallHomeServer callHomeServer;
  private NatsWorkerServer worker;
  private RequestPlane plane;
  private ScriptedEngine engine;
  private final CompletableFuture<String> asked = new CompletableFuture<>();

  @BeforeEach
  void setUp(Vertx vertx) throws Exception {
    this.vertx = vertx;
    nats = NatsServerProcess.start();
    workerNats = NatsConnection.start(nats.server(), "worker");
    routerNats = NatsConnection.start(nats.server(), "router");
    Connection connection = connected(workerNats);
    connected(routerNats);
    engine = new ScriptedEngine(vertx, 3, 0, ScriptedEngine.Failure.NONE);
    JsonEndpoint query =
        question -> {
          asked.complete(new String(question, StandardCharsets.UTF_8));
          return CompletableFuture.completedFuture(
              "{\"TooNew\":{\"newest_available\":5}}".getBytes(StandardCharsets.UTF_8));
        };
    callHomeServer =
        CallHomeServer.create(
            vertx,
            Map.of("generate", engine),
            Map.of("worker_kv_query_source_7587", query),
            TcpEndToEndTest.config(2));
    worker = NatsWorkerServer.start(connection, "dynamo", "backend", INSTANCE, callHomeServer);
    plane = NatsTransport.client(vertx, TcpEndToEndTest.config(2), routerNats::current);
    Await.result(plane.start());
  }

  @AfterEach
  void tearDown() throws Exception {
    if (plane != null) {
      Await.result(plane.close());
    }
    if (worker != null) {
      Await.result(worker.close());
    }
    routerNats.close();
    workerNats.close();
    nats.close();
  }

  private static Connection connected(NatsConnection connection) {
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> connection.current() != null);
    return connection.current();
  }

  private static WorkerEndpoint endpoint(PayloadCodec codec) {
    return new WorkerEndpoint("w1", "", 0, "generate", codec, "dynamo_backend.generate-7587");
  }

  @Test
  void workerListensOnDynamosSubject() {
    assertThat(worker.subjectsByEndpoint())
        .containsEntry("generate", "dynamo_backend.generate-7587")
        .containsEntry(
            "worker_kv_query_source_7587", "dynamo_backend.worker_kv_query_source_7587-7587");
    assertThat(NatsRequestSubjects.of("dynamo", "backend", "generate", INSTANCE))
        .isEqualTo("dynamo_backend.generate-7587");
  }

  @ParameterizedTest
  @EnumSource(PayloadCodec.class)
  void streamsOutputsBackOverTheCallHomePath(PayloadCodec codec) throws Exception {
    ResponseStream stream =
        Await.result(plane.send(endpoint(codec), "r1", TcpEndToEndTest.request(7)));
    Collector collector = new Collector();
    stream.subscribe(collector);
    List<EngineOutput> outputs = collector.await();

    assertThat(Collector.tokens(outputs)).containsExactly(ScriptedEngine.expectedTokens(7, 3));
    assertThat(outputs.get(2).finishReason()).isEqualTo(FinishReason.LENGTH);
    assertThat(engine.run("r1").request.get(5, TimeUnit.SECONDS))
        .isEqualTo(TcpEndToEndTest.request(7));
  }

  @ParameterizedTest
  @EnumSource(PayloadCodec.class)
  void asksAnotherEndpointOverNats(PayloadCodec codec) throws Exception {
    WorkerEndpoint query = endpoint(codec).sibling("worker_kv_query_source_7587");

    List<JsonNode> answer =
        Await.result(
            plane.ask(query, "q1", "{\"worker_id\":7}".getBytes(), Duration.ofSeconds(10)));

    assertThat(query.natsSubject()).isEqualTo("dynamo_backend.worker_kv_query_source_7587-7587");
    assertThat(answer).hasSize(1);
    assertThat(answer.get(0).toString()).isEqualTo("{\"TooNew\":{\"newest_available\":5}}");
    assertThat(asked.get(5, TimeUnit.SECONDS)).isEqualTo("{\"worker_id\":7}");
  }

  @Test
  void aSubjectNobodyListensOnIsUnreachableAtOnce_noResponders() throws Exception {
    WorkerEndpoint gone =
        new WorkerEndpoint(
            "w2", "", 0, "generate", PayloadCodec.JSON, "dynamo_backend.generate-dead");

    Throwable failure = Await.failure(plane.send(gone, "r2", TcpEndToEndTest.request(1)));

    assertThat(failure)
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("no responders");
    assertThat(((WorkerUnavailableException) failure).workerId()).isEqualTo("w2");
    assertThat(Await.failure(plane.probe(gone)))
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("no responders");
  }

  @Test
  void probeIsAnsweredByALiveWorker() throws Exception {
    Await.result(plane.probe(endpoint(PayloadCodec.JSON)));
  }

  @Test
  void withoutNatsTheWorkerIsUnreachable() throws Exception {
    nats.stop();
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> routerNats.current().getStatus() != Connection.Status.CONNECTED);

    Throwable failure =
        Await.failure(plane.send(endpoint(PayloadCodec.JSON), "r3", TcpEndToEndTest.request(1)));

    assertThat(failure)
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("not connected to NATS");
  }

  @Test
  void startWaitsForTheNatsConnection_soTheFirstRequestFindsIt() throws Exception {
    AtomicBoolean up = new AtomicBoolean();
    RequestPlane late =
        NatsTransport.client(
            vertx, TcpEndToEndTest.config(2), () -> up.get() ? routerNats.current() : null);
    try {
      Future<Void> started = late.start();
      // a send goes out once the call-home listener is bound: its failure means it is bound
      assertThat(
              Await.failure(
                  late.send(endpoint(PayloadCodec.JSON), "r0", TcpEndToEndTest.request(1))))
          .hasMessageContaining("not connected to NATS");
      assertThat(started.isComplete()).as("started before NATS was connected").isFalse();

      up.set(true);
      Await.result(started);
      ResponseStream stream =
          Await.result(late.send(endpoint(PayloadCodec.JSON), "r4", TcpEndToEndTest.request(3)));
      Collector collector = new Collector();
      stream.subscribe(collector);
      assertThat(Collector.tokens(collector.await()))
          .containsExactly(ScriptedEngine.expectedTokens(3, 3));
    } finally {
      Await.result(late.close());
    }
  }

  @Test
  void aSubscriberThatNeverRepliesIsUnreachableAfterTheRequestTimeout() throws Exception {
    TcpConfig oneSecond =
        new TcpConfig(
            TcpConfig.DEFAULT_MAX_MESSAGE_SIZE,
            Duration.ofSeconds(1),
            2,
            Duration.ofSeconds(5),
            "127.0.0.1",
            0,
            null);
    RequestPlane impatient = NatsTransport.client(vertx, oneSecond, routerNats::current);
    Connection silent = connected(workerNats);
    Dispatcher mute = silent.createDispatcher(message -> {});
    mute.subscribe("dynamo_backend.generate-51");
    silent.flush(Duration.ofSeconds(10));
    WorkerEndpoint hung =
        new WorkerEndpoint(
            "w3", "", 0, "generate", PayloadCodec.JSON, "dynamo_backend.generate-51");
    try {
      Await.result(impatient.start());
      assertThat(Await.failure(impatient.send(hung, "r5", TcpEndToEndTest.request(1))))
          .isInstanceOf(WorkerUnavailableException.class)
          .hasMessageContaining("no reply on dynamo_backend.generate-51 within 1000 ms");
      assertThat(Await.failure(impatient.probe(hung)))
          .isInstanceOf(WorkerUnavailableException.class)
          .hasMessageContaining("no reply");
    } finally {
      silent.closeDispatcher(mute);
      Await.result(impatient.close());
    }
  }

  @Test
  void anEnvelopeOverTheServersMaxPayloadIsRefusedBeforeSending() throws Exception {
    // nats-server's default max_payload is 1 MiB; a prompt of 400k tokens is several MB of JSON
    int[] tokens = new int[400_000];
    Arrays.fill(tokens, 12345);
    Throwable failure =
        Await.failure(
            plane.send(endpoint(PayloadCodec.JSON), "r6", TcpEndToEndTest.request(1, tokens)));

    assertThat(failure)
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("exceed the NATS server's max_payload of 1048576 bytes");
  }
}
