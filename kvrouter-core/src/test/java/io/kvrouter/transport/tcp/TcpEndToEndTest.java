package io.kvrouter.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.InferenceEngine;
import io.kvrouter.protocol.InvalidRequestException;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.RequestCancelledException;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerStreamException;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.kvrouter.transport.RequestPlane;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The TCP request plane against the worker server, over loopback. */
@ExtendWith(VertxExtension.class)
class TcpEndToEndTest {
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
  void streamsOutputsInOrderAndCompletes() throws Exception {
    ScriptedEngine engine = new ScriptedEngine(vertx, 5, 2, ScriptedEngine.Failure.NONE);
    WorkerEndpoint worker = startWorker(engine);
    RequestPlane plane = client(100);

    ResponseStream stream = Await.result(plane.send(worker, "r1", request(7)));
    Collector collector = new Collector();
    stream.subscribe(collector);
    List<EngineOutput> outputs = collector.await();

    assertThat(Collector.tokens(outputs)).containsExactly(ScriptedEngine.expectedTokens(7, 5));
    assertThat(outputs.get(4).finishReason()).isEqualTo(FinishReason.LENGTH);
    assertThat(engine.run("r1").request.get(5, TimeUnit.SECONDS)).isEqualTo(request(7));
    assertThat(collector.threads).hasSize(1);
    assertThat(collector.everOffEventLoop).isFalse();
  }

  @Test
  void manyConcurrentRequestsShareAPoolOfTwo() throws Exception {
    ScriptedEngine engine = new ScriptedEngine(vertx, 4, 0, ScriptedEngine.Failure.NONE);
    TcpWorkerServer server = startServer(Map.of("generate", engine));
    WorkerEndpoint worker = new WorkerEndpoint("w1", "127.0.0.1", server.port(), "generate");
    RequestPlane plane = client(2);
    int requests = 200;

    List<CompletableFuture<List<EngineOutput>>> results = new ArrayList<>();
    for (int i = 1; i <= requests; i++) {
      Collector collector = new Collector();
      results.add(collector.done);
      plane
          .send(worker, "req-" + i, request(i))
          .onSuccess(stream -> stream.subscribe(collector))
          .onFailure(collector.done::completeExceptionally);
    }

    for (int i = 1; i <= requests; i++) {
      List<EngineOutput> outputs = results.get(i - 1).get(20, TimeUnit.SECONDS);
      assertThat(Collector.tokens(outputs))
          .as("request %d", i)
          .containsExactly(ScriptedEngine.expectedTokens(i, 4));
    }
    assertThat(server.acceptedConnections()).isBetween(1, 2);
  }

  @Test
  void unknownPathIsRejectedAsUnavailable() throws Exception {
    WorkerEndpoint known =
        startWorker(new ScriptedEngine(vertx, 1, 0, ScriptedEngine.Failure.NONE));
    WorkerEndpoint unknown = new WorkerEndpoint("w1", known.host(), known.port(), "nope");

    Throwable failure = Await.failure(client(100).send(unknown, "r1", request(1)));

    assertThat(failure)
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("Server unavailable: unknown endpoint nope");
    assertThat(((WorkerUnavailableException) failure).workerId()).isEqualTo("w1");
  }

  @Test
  void refusedConnectionIsUnavailable() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    WorkerEndpoint dead = new WorkerEndpoint("dead", "127.0.0.1", port, "generate");
    RequestPlane plane = client(100);

    assertThat(Await.failure(plane.send(dead, "r1", request(1))))
        .isInstanceOf(WorkerUnavailableException.class);
    assertThat(Await.failure(plane.probe(dead))).isInstanceOf(WorkerUnavailableException.class);
  }

  @Test
  void probeIsAnsweredByTheWorkerServer_onAFreshConnectionEachTime() throws Exception {
    TcpWorkerServer server =
        startServer(
            Map.of("generate", new ScriptedEngine(vertx, 1, 0, ScriptedEngine.Failure.NONE)));
    RequestPlane plane = client(100);
    WorkerEndpoint worker = new WorkerEndpoint("w1", "127.0.0.1", server.port(), "generate");

    // The worker acks the probe's unknown path with a rejection, which proves it is running. Each
    // probe opens a fresh connection: an old pooled one can outlive a worker that hangs.
    Await.result(plane.probe(worker));
    Await.result(plane.probe(worker));
    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> server.acceptedConnections() == 2);
  }

  @Test
  void cancelStopsTheEngineAndEndsTheStream() throws Exception {
    ScriptedEngine engine = new ScriptedEngine(vertx, 10_000, 5, ScriptedEngine.Failure.NONE);
    WorkerEndpoint worker = startWorker(engine);
    ResponseStream stream = Await.result(client(100).send(worker, "r1", request(3)));
    CompletableFuture<Void> firstOutput = new CompletableFuture<>();
    Collector collector = new Collector(output -> firstOutput.complete(null));
    stream.subscribe(collector);
    firstOutput.get(20, TimeUnit.SECONDS);

    stream.cancel();

    assertThat(collector.awaitError()).isInstanceOf(RequestCancelledException.class);
    engine.run("r1").cancelled.get(20, TimeUnit.SECONDS);
    assertThat(engine.run("r1").emitted).isLessThan(10_000);
  }

  @Test
  void engineRefusingInGenerate_failsTheSendAsARefusal() throws Exception {
    WorkerEndpoint worker =
        startWorker(new ScriptedEngine(vertx, 3, 0, ScriptedEngine.Failure.ON_GENERATE));

    Throwable failure = Await.failure(client(100).send(worker, "r1", request(1)));

    assertThat(failure)
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("prompt too long for this engine");
    assertThat(((WorkerUnavailableException) failure).workerFault()).isFalse();
  }

  @Test
  void engineFailureBeforeAnyOutput_isAReportedStreamError() throws Exception {
    WorkerEndpoint worker =
        startWorker(new ScriptedEngine(vertx, 3, 0, ScriptedEngine.Failure.BEFORE_FIRST_OUTPUT));
    Collector collector = new Collector();
    Await.result(client(100).send(worker, "r1", request(1))).subscribe(collector);

    Throwable failure = collector.awaitError();

    assertThat(failure)
        .isInstanceOf(WorkerStreamException.class)
        .hasMessageContaining("engine exploded");
    assertThat(((WorkerStreamException) failure).disconnected()).isFalse();
  }

  @Test
  void engineFailureAfterAnOutputFailsTheStream() throws Exception {
    WorkerEndpoint worker =
        startWorker(new ScriptedEngine(vertx, 3, 0, ScriptedEngine.Failure.AFTER_FIRST_OUTPUT));
    ResponseStream stream = Await.result(client(100).send(worker, "r1", request(2)));
    Collector collector = new Collector();
    stream.subscribe(collector);

    Throwable failure = collector.awaitError();

    assertThat(failure)
        .isInstanceOf(WorkerStreamException.class)
        .hasMessageContaining("engine exploded mid-stream");
    assertThat(Collector.tokens(collector.outputs)).containsExactly(2000);
  }

  @Test
  void engineThatThrowsFromGenerateFailsTheSend() throws Exception {
    InferenceEngine broken =
        (id, request) -> {
          throw new IllegalArgumentException("model not loaded");
        };
    TcpWorkerServer server = startServer(Map.of("generate", broken));
    WorkerEndpoint worker = new WorkerEndpoint("w1", "127.0.0.1", server.port(), "generate");

    assertThat(Await.failure(client(100).send(worker, "r1", request(1))))
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("model not loaded");
  }

  @Test
  void pausedStreamDeliversNothingUntilResumed() throws Exception {
    ScriptedEngine engine = new ScriptedEngine(vertx, 20, 0, ScriptedEngine.Failure.NONE);
    WorkerEndpoint worker = startWorker(engine);
    ResponseStream stream = Await.result(client(100).send(worker, "r1", request(4)));
    CompletableFuture<Void> paused = new CompletableFuture<>();
    Collector collector =
        new Collector(
            output -> {
              if (output.tokenIds()[0] == 4000) {
                stream.pause();
                paused.complete(null);
              }
            });
    stream.subscribe(collector);
    paused.get(20, TimeUnit.SECONDS);
    engine.run("r1").finished.get(20, TimeUnit.SECONDS);

    assertThat(collector.count()).isEqualTo(1);
    stream.resume();

    assertThat(Collector.tokens(collector.await()))
        .containsExactly(ScriptedEngine.expectedTokens(4, 20));
  }

  @Test
  void closingThePlaneEndsRunningStreamsAndCancelsTheEngine() throws Exception {
    ScriptedEngine engine = new ScriptedEngine(vertx, 10_000, 5, ScriptedEngine.Failure.NONE);
    WorkerEndpoint worker = startWorker(engine);
    RequestPlane plane = TcpTransport.client(vertx, config(100));
    ResponseStream stream = Await.result(plane.send(worker, "r1", request(5)));
    CompletableFuture<Void> firstOutput = new CompletableFuture<>();
    Collector collector = new Collector(output -> firstOutput.complete(null));
    stream.subscribe(collector);
    firstOutput.get(20, TimeUnit.SECONDS);

    Await.result(plane.close());

    assertThat(collector.awaitError()).isInstanceOf(WorkerStreamException.class);
    engine.run("r1").cancelled.get(20, TimeUnit.SECONDS);
    assertThat(Await.failure(plane.send(worker, "r2", request(5))))
        .isInstanceOf(WorkerUnavailableException.class);
  }

  @Test
  void closingTheWorkerServerCancelsItsEngineStreams() throws Exception {
    ScriptedEngine engine = new ScriptedEngine(vertx, 10_000, 5, ScriptedEngine.Failure.NONE);
    TcpWorkerServer server = startServer(Map.of("generate", engine));
    servers.remove(server);
    WorkerEndpoint worker = new WorkerEndpoint("w1", "127.0.0.1", server.port(), "generate");
    ResponseStream stream = Await.result(client(100).send(worker, "r1", request(6)));
    CompletableFuture<Void> firstOutput = new CompletableFuture<>();
    Collector collector = new Collector(output -> firstOutput.complete(null));
    stream.subscribe(collector);
    firstOutput.get(20, TimeUnit.SECONDS);

    Await.result(server.close());

    engine.run("r1").cancelled.get(20, TimeUnit.SECONDS);
    assertThat(collector.awaitError()).isInstanceOf(WorkerStreamException.class);
  }

  @Test
  void requestTooLargeForAFrameIsTheClientsFault() throws Exception {
    WorkerEndpoint worker =
        startWorker(new ScriptedEngine(vertx, 1, 0, ScriptedEngine.Failure.NONE));
    RequestPlane plane =
        TcpTransport.client(
            vertx,
            new TcpConfig(
                2048, Duration.ofSeconds(5), 4, Duration.ofSeconds(5), "127.0.0.1", 0, null));
    planes.add(plane);

    Throwable failure = Await.failure(plane.send(worker, "r1", request(1, new int[1000])));

    assertThat(failure).isInstanceOf(InvalidRequestException.class);
    // far too large: refused before it is even serialized
    assertThat(Await.failure(plane.send(worker, "r2", request(1, new int[5000]))))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("5000 tokens do not fit");
  }

  @Test
  void aPromptTooLargeToEncodeOnTheEventLoop_arrivesWhole() throws Exception {
    ScriptedEngine engine = new ScriptedEngine(vertx, 1, 0, ScriptedEngine.Failure.NONE);
    WorkerEndpoint worker = startWorker(engine);
    RequestPlane plane = client(4);
    int[] tokens = new int[TcpRequestPlane.INLINE_ENCODE_TOKENS * 3];
    java.util.Arrays.setAll(tokens, i -> i % 50_000);

    Collector collector = new Collector();
    Await.result(plane.send(worker, "big", request(9, tokens))).subscribe(collector);

    assertThat(Collector.tokens(collector.await()))
        .containsExactly(ScriptedEngine.expectedTokens(9, 1));
    assertThat(engine.run("big").request.get(5, TimeUnit.SECONDS).tokenIds()).isEqualTo(tokens);
  }

  @Test
  void busyListenerPortFailsEverySendWithTheReason() throws Exception {
    try (ServerSocket taken =
        new ServerSocket(0, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
      RequestPlane plane =
          TcpTransport.client(
              vertx,
              new TcpConfig(
                  TcpConfig.DEFAULT_MAX_MESSAGE_SIZE,
                  Duration.ofSeconds(5),
                  4,
                  Duration.ofSeconds(5),
                  "127.0.0.1",
                  taken.getLocalPort(),
                  null));
      planes.add(plane);
      WorkerEndpoint worker = new WorkerEndpoint("w1", "127.0.0.1", 1, "generate");

      assertThat(Await.failure(plane.send(worker, "r1", request(1))))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("response-stream listener")
          .hasMessageContaining("--tcp-response-stream-port");
      assertThat(Await.failure(plane.start()))
          .hasMessageContaining("response-stream listener cannot bind");
    }
  }

  private WorkerEndpoint startWorker(InferenceEngine engine) throws Exception {
    TcpWorkerServer server = startServer(Map.of("generate", engine));
    return new WorkerEndpoint("w1", "127.0.0.1", server.port(), "generate");
  }

  private TcpWorkerServer startServer(Map<String, InferenceEngine> engines) throws Exception {
    Future<WorkerServer> started = TcpTransport.server(vertx, "127.0.0.1", 0, engines, config(4));
    WorkerServer server = Await.result(started);
    servers.add(server);
    return (TcpWorkerServer) server;
  }

  private RequestPlane client(int poolSize) {
    RequestPlane plane = TcpTransport.client(vertx, config(poolSize));
    planes.add(plane);
    return plane;
  }

  static TcpConfig config(int poolSize) {
    return new TcpConfig(
        TcpConfig.DEFAULT_MAX_MESSAGE_SIZE,
        Duration.ofSeconds(5),
        poolSize,
        Duration.ofSeconds(5),
        "127.0.0.1",
        0,
        null);
  }

  static PreprocessedRequest request(int firstToken) {
    return request(firstToken, new int[] {firstToken, 1, 2});
  }

  static PreprocessedRequest request(int firstToken, int[] tokens) {
    tokens[0] = firstToken;
    return new PreprocessedRequest("mock-model", tokens, null, null, null, null, null);
  }
}
