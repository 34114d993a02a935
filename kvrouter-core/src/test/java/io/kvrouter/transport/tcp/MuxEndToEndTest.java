package io.kvrouter.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.ResponseStreamKind;
import io.kvrouter.config.ResponseStreams;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.InferenceEngine;
import io.kvrouter.protocol.RequestCancelledException;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerStreamException;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.kvrouter.transport.JsonEndpoint;
import io.kvrouter.transport.RequestPlane;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Responses over {@code tcp_response_mux_v1}: the router's plane against the worker server, over
 * loopback, with the per-worker choice of response transport.
 */
@ExtendWith(VertxExtension.class)
class MuxEndToEndTest {
  private Vertx vertx;
  private final List<WorkerServer> servers = new ArrayList<>();
  private final List<RequestPlane> planes = new ArrayList<>();

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
  }

  @AfterEach
  void tearDown() throws Exception {
    for (RequestPlane plane : planes) {
      Await.result(plane.close());
    }
    for (WorkerServer server : servers) {
      Await.result(server.close());
    }
  }

  @Test
  void aStreamComesBackOnAMuxConnection() throws Exception {
    ScriptedEngine engine = new ScriptedEngine(vertx, 5, 2, ScriptedEngine.Failure.NONE);
    TcpWorkerServer server = startServer(engine, Set.of(ResponseStreamKind.MUX), 4);
    RequestPlane plane = client(ResponseStreams.all(ResponseStreamKind.MUX));

    Collector collector = new Collector();
    Await.result(plane.send(worker(server), "r1", TcpEndToEndTest.request(7))).subscribe(collector);

    assertThat(Collector.tokens(collector.await()))
        .containsExactly(ScriptedEngine.expectedTokens(7, 5));
    assertThat(server.muxConnectionsOpened()).isEqualTo(1);
  }

  /** A msgpack worker's items travel in msgpack inside the Data frames, as over a call-home. */
  @Test
  void msgpackItemsComeBackOnAMuxConnection() throws Exception {
    ScriptedEngine engine = new ScriptedEngine(vertx, 5, 1, ScriptedEngine.Failure.NONE);
    TcpWorkerServer server = startServer(engine, Set.of(ResponseStreamKind.MUX), 4);
    RequestPlane plane = client(ResponseStreams.all(ResponseStreamKind.MUX));

    Collector collector = new Collector();
    Await.result(
            plane.send(
                worker(server).withCodec(io.kvrouter.protocol.PayloadCodec.MSGPACK),
                "r1",
                TcpEndToEndTest.request(6)))
        .subscribe(collector);

    assertThat(Collector.tokens(collector.await()))
        .containsExactly(ScriptedEngine.expectedTokens(6, 5));
    assertThat(engine.run("r1").request.get(5, TimeUnit.SECONDS).tokenIds())
        .containsExactly(6, 1, 2);
    assertThat(server.muxConnectionsOpened()).isEqualTo(1);
  }

  @Test
  void manyConcurrentStreamsShareAFewConnections() throws Exception {
    ScriptedEngine engine = new ScriptedEngine(vertx, 4, 1, ScriptedEngine.Failure.NONE);
    TcpWorkerServer server = startServer(engine, Set.of(ResponseStreamKind.MUX), 4);
    RequestPlane plane = client(ResponseStreams.all(ResponseStreamKind.MUX));
    int requests = 200;

    List<CompletableFuture<List<EngineOutput>>> results = new ArrayList<>();
    for (int i = 1; i <= requests; i++) {
      Collector collector = new Collector();
      results.add(collector.done);
      plane
          .send(worker(server), "req-" + i, TcpEndToEndTest.request(i))
          .onSuccess(stream -> stream.subscribe(collector))
          .onFailure(collector.done::completeExceptionally);
    }

    for (int i = 1; i <= requests; i++) {
      assertThat(Collector.tokens(results.get(i - 1).get(20, TimeUnit.SECONDS)))
          .as("request %d", i)
          .containsExactly(ScriptedEngine.expectedTokens(i, 4));
    }
    assertThat(server.muxConnectionsOpened()).isBetween(1, MuxClientPool.POOL_SIZE);
  }

  /**
   * A paused stream holds back only its own credits: the connection's are given back as bytes
   * arrive, so the other stream on the same (only) connection runs to its end while the paused
   * stream's worker has more than a connection window (256 KiB) queued for it.
   */
  @Test
  void aPausedStreamDoesNotBlockTheOthersOnItsConnection() throws Exception {
    BulkEngine slowReader = new BulkEngine(vertx, 200, 500);
    BulkEngine other = new BulkEngine(vertx, 200, 500);
    TcpWorkerServer server =
        startServer(Map.of("slow", slowReader, "other", other), Set.of(ResponseStreamKind.MUX), 1);
    RequestPlane plane = client(ResponseStreams.all(ResponseStreamKind.MUX));

    ResponseStream paused =
        Await.result(
            plane.send(
                new WorkerEndpoint("w1", "127.0.0.1", server.port(), "slow"),
                "slow",
                TcpEndToEndTest.request(3)));
    CompletableFuture<Void> pausedNow = new CompletableFuture<>();
    Collector slow =
        new Collector(
            output -> {
              if (!pausedNow.isDone()) {
                paused.pause();
                pausedNow.complete(null);
              }
            });
    paused.subscribe(slow);
    pausedNow.get(20, TimeUnit.SECONDS);
    slowReader.emitted.get(20, TimeUnit.SECONDS);

    Collector running = new Collector();
    Await.result(
            plane.send(
                new WorkerEndpoint("w1", "127.0.0.1", server.port(), "other"),
                "other",
                TcpEndToEndTest.request(4)))
        .subscribe(running);

    assertThat(Collector.tokens(running.await())).hasSize(200 * 500);
    assertThat(slow.count()).isEqualTo(1);
    assertThat(server.muxConnectionsOpened()).isEqualTo(1);

    paused.resume();
    assertThat(Collector.tokens(slow.await())).hasSize(200 * 500);
  }

  @Test
  void cancelKillsTheStreamAtTheWorkerAndSparesTheOthers() throws Exception {
    ScriptedEngine engine = new ScriptedEngine(vertx, 10_000, 5, ScriptedEngine.Failure.NONE);
    ScriptedEngine quick = new ScriptedEngine(vertx, 50, 2, ScriptedEngine.Failure.NONE);
    TcpWorkerServer server =
        startServer(Map.of("generate", engine, "quick", quick), Set.of(ResponseStreamKind.MUX), 1);
    RequestPlane plane = client(ResponseStreams.all(ResponseStreamKind.MUX));
    ResponseStream stream =
        Await.result(plane.send(worker(server), "r1", TcpEndToEndTest.request(3)));
    CompletableFuture<Void> firstOutput = new CompletableFuture<>();
    Collector collector = new Collector(output -> firstOutput.complete(null));
    stream.subscribe(collector);
    firstOutput.get(20, TimeUnit.SECONDS);
    Collector survivor = new Collector();
    Await.result(
            plane.send(
                new WorkerEndpoint("w1", "127.0.0.1", server.port(), "quick"),
                "r2",
                TcpEndToEndTest.request(8)))
        .subscribe(survivor);

    stream.cancel();

    assertThat(collector.awaitError()).isInstanceOf(RequestCancelledException.class);
    engine.run("r1").cancelled.get(20, TimeUnit.SECONDS);
    assertThat(engine.run("r1").emitted).isLessThan(10_000);
    assertThat(Collector.tokens(survivor.await()))
        .containsExactly(ScriptedEngine.expectedTokens(8, 50));
  }

  @Test
  void aDroppedConnectionBreaksEveryStreamOnIt() throws Exception {
    ScriptedEngine engine = new ScriptedEngine(vertx, 10_000, 5, ScriptedEngine.Failure.NONE);
    TcpWorkerServer server = startServer(engine, Set.of(ResponseStreamKind.MUX), 1);
    RequestPlane plane = client(ResponseStreams.all(ResponseStreamKind.MUX));
    List<Collector> collectors = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      CompletableFuture<Void> first = new CompletableFuture<>();
      Collector collector = new Collector(output -> first.complete(null));
      Await.result(plane.send(worker(server), "r" + i, TcpEndToEndTest.request(i)))
          .subscribe(collector);
      first.get(20, TimeUnit.SECONDS);
      collectors.add(collector);
    }

    Await.result(server.dropMuxConnections());

    for (int i = 1; i <= 3; i++) {
      Throwable failure = collectors.get(i - 1).awaitError();
      assertThat(failure).isInstanceOf(WorkerStreamException.class);
      assertThat(((WorkerStreamException) failure).disconnected()).isTrue();
      engine.run("r" + i).cancelled.get(20, TimeUnit.SECONDS);
    }
    // the worker opens a fresh connection for the next stream
    CompletableFuture<Void> nextOutput = new CompletableFuture<>();
    Collector next = new Collector(output -> nextOutput.complete(null));
    Await.result(plane.send(worker(server), "r9", TcpEndToEndTest.request(9))).subscribe(next);
    nextOutput.get(20, TimeUnit.SECONDS);
    assertThat(server.muxConnectionsOpened()).isEqualTo(2);
  }

  /**
   * Items larger than the stream window (a KV tree dump, say) cost the worker a whole window each;
   * the router gives back no more than that, or the worker would reset the stream.
   */
  @Test
  void itemsLargerThanTheWindowComeThrough() throws Exception {
    String big = "x".repeat(1_000_000);
    JsonEndpoint dump =
        question -> CompletableFuture.completedFuture(("\"" + big + "\"").getBytes());
    WorkerServer server =
        Await.result(
            TcpWorkerServer.start(
                vertx,
                "127.0.0.1",
                0,
                Map.of(),
                Map.of("dump", dump),
                TcpEndToEndTest.config(4),
                Set.of(ResponseStreamKind.MUX),
                1));
    servers.add(server);
    RequestPlane plane = client(ResponseStreams.all(ResponseStreamKind.MUX));
    WorkerEndpoint endpoint = new WorkerEndpoint("w1", "127.0.0.1", server.port(), "dump");

    for (int i = 0; i < 3; i++) {
      var answer =
          Await.result(plane.ask(endpoint, "q" + i, "{}".getBytes(), Duration.ofSeconds(20)));
      assertThat(answer.get(0).asText()).hasSize(1_000_000);
    }
  }

  @Test
  void aQuestionIsAnsweredOverMux() throws Exception {
    JsonEndpoint echo = question -> CompletableFuture.completedFuture("{\"Ok\":42}".getBytes());
    WorkerServer server =
        Await.result(
            TcpWorkerServer.start(
                vertx,
                "127.0.0.1",
                0,
                Map.of(),
                Map.of("query", echo),
                TcpEndToEndTest.config(4),
                Set.of(ResponseStreamKind.MUX),
                4));
    servers.add(server);
    RequestPlane plane = client(ResponseStreams.all(ResponseStreamKind.MUX));

    var answer =
        Await.result(
            plane.ask(
                new WorkerEndpoint("w1", "127.0.0.1", server.port(), "query"),
                "q1",
                "{}".getBytes(),
                Duration.ofSeconds(20)));

    assertThat(answer).hasSize(1);
    assertThat(answer.get(0).get("Ok").asInt()).isEqualTo(42);
  }

  /** One router, a v1.5-style worker (call-home only) and a mux-only one, each asked its way. */
  @Test
  void oneRouterServesACallHomeWorkerAndAMuxWorker() throws Exception {
    TcpWorkerServer legacy =
        startServer(
            new ScriptedEngine(vertx, 3, 0, ScriptedEngine.Failure.NONE),
            Set.of(ResponseStreamKind.CALL_HOME),
            4);
    TcpWorkerServer current =
        startServer(
            new ScriptedEngine(vertx, 3, 0, ScriptedEngine.Failure.NONE),
            Set.of(ResponseStreamKind.MUX),
            4);
    WorkerEndpoint legacyWorker = new WorkerEndpoint("v15", "127.0.0.1", legacy.port(), "generate");
    WorkerEndpoint muxWorker = new WorkerEndpoint("v17", "127.0.0.1", current.port(), "generate");
    RequestPlane plane =
        client(
            new ResponseStreams(
                ResponseStreamKind.CALL_HOME, Map.of("v17", ResponseStreamKind.MUX)));

    for (WorkerEndpoint worker : List.of(legacyWorker, muxWorker)) {
      Collector collector = new Collector();
      Await.result(plane.send(worker, "to-" + worker.workerId(), TcpEndToEndTest.request(5)))
          .subscribe(collector);
      assertThat(Collector.tokens(collector.await()))
          .containsExactly(ScriptedEngine.expectedTokens(5, 3));
    }
    assertThat(legacy.muxConnectionsOpened()).isZero();
    assertThat(current.muxConnectionsOpened()).isEqualTo(1);
  }

  @Test
  void aWorkerRefusesTheTransportItsReleaseDoesNotSpeak() throws Exception {
    TcpWorkerServer legacy =
        startServer(
            new ScriptedEngine(vertx, 3, 0, ScriptedEngine.Failure.NONE),
            Set.of(ResponseStreamKind.CALL_HOME),
            4);
    TcpWorkerServer current =
        startServer(
            new ScriptedEngine(vertx, 3, 0, ScriptedEngine.Failure.NONE),
            Set.of(ResponseStreamKind.MUX),
            4);

    Throwable toLegacy =
        Await.failure(
            client(ResponseStreams.all(ResponseStreamKind.MUX))
                .send(worker(legacy), "r1", TcpEndToEndTest.request(1)));
    Throwable toCurrent =
        Await.failure(
            client(ResponseStreams.CALL_HOME)
                .send(worker(current), "r2", TcpEndToEndTest.request(1)));

    assertThat(toLegacy)
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining(
            "TcpClient requires the transport to be `tcp_server`; however tcp_response_mux_v1");
    assertThat(toCurrent)
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("response mux requires `tcp_response_mux_v1`; got tcp_server");
  }

  private static WorkerEndpoint worker(WorkerServer server) {
    return new WorkerEndpoint("w1", "127.0.0.1", server.port(), "generate");
  }

  private TcpWorkerServer startServer(
      InferenceEngine engine, Set<ResponseStreamKind> accepted, int muxPoolSize) throws Exception {
    return startServer(Map.of("generate", engine), accepted, muxPoolSize);
  }

  private TcpWorkerServer startServer(
      Map<String, InferenceEngine> engines, Set<ResponseStreamKind> accepted, int muxPoolSize)
      throws Exception {
    WorkerServer server =
        Await.result(
            TcpWorkerServer.start(
                vertx,
                "127.0.0.1",
                0,
                engines,
                Map.of(),
                TcpEndToEndTest.config(4),
                accepted,
                muxPoolSize));
    servers.add(server);
    return (TcpWorkerServer) server;
  }

  private RequestPlane client(ResponseStreams streams) {
    TcpConfig config = TcpEndToEndTest.config(4).withResponseStreams(streams);
    RequestPlane plane = TcpTransport.client(vertx, config);
    planes.add(plane);
    return plane;
  }
}
