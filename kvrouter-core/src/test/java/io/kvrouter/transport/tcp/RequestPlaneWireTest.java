package io.kvrouter.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.RequestCancelledException;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerStreamException;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.kvrouter.transport.RequestPlane;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The request plane against a hand-written worker that misbehaves on purpose. */
@ExtendWith(VertxExtension.class)
class RequestPlaneWireTest {
  private Vertx vertx;
  private RequestPlane plane;

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
    this.plane = plane(Duration.ofSeconds(5), 2);
  }

  @AfterEach
  void tearDown() throws Exception {
    Await.result(plane.close());
  }

  private RequestPlane plane(Duration ackTimeout, int poolSize) {
    return TcpTransport.client(
        vertx,
        new TcpConfig(
            TcpConfig.DEFAULT_MAX_MESSAGE_SIZE,
            ackTimeout,
            poolSize,
            Duration.ofSeconds(5),
            "127.0.0.1",
            0,
            null));
  }

  @Test
  void sendsTheDocumentedRequest() throws Exception {
    CompletableFuture<InboundRequest> received = new CompletableFuture<>();
    WorkerEndpoint worker =
        worker(
            (socket, request) -> {
              received.complete(request);
              RawPeers.ack(socket, Ack.rejected("Server overloaded: worker at capacity"));
            });

    Await.failure(plane.send(worker, "req-42", TcpEndToEndTest.request(7)));

    InboundRequest request = received.get(20, TimeUnit.SECONDS);
    assertThat(request.requestId()).isEqualTo("req-42");
    assertThat(request.callHome().host()).isEqualTo("127.0.0.1");
    assertThat(request.subject()).isNotBlank();
    assertThat(request.request()).isEqualTo(TcpEndToEndTest.request(7));
  }

  @Test
  void advertisesTheConfiguredCallHomeHost() throws Exception {
    Await.result(plane.close());
    plane =
        TcpTransport.client(
            vertx,
            new TcpConfig(
                TcpConfig.DEFAULT_MAX_MESSAGE_SIZE,
                Duration.ofSeconds(5),
                2,
                Duration.ofSeconds(5),
                "127.0.0.1",
                0,
                "localhost"));
    CompletableFuture<InboundRequest> received = new CompletableFuture<>();
    WorkerEndpoint worker =
        worker(
            (socket, request) -> {
              received.complete(request);
              RawPeers.ack(socket, Ack.rejected("Server unavailable: test"));
            });

    Await.failure(plane.send(worker, "r1", TcpEndToEndTest.request(1)));

    assertThat(received.get(20, TimeUnit.SECONDS).callHome().host()).isEqualTo("localhost");
  }

  @Test
  void rejectionTextReachesTheCaller() throws Exception {
    WorkerEndpoint worker =
        worker(
            (socket, request) ->
                RawPeers.ack(socket, Ack.rejected("Server overloaded: worker at capacity")));

    assertThat(Await.failure(plane.send(worker, "r1", TcpEndToEndTest.request(1))))
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("Server overloaded: worker at capacity");
  }

  @Test
  void missingAckTimesOut() throws Exception {
    WorkerEndpoint worker = worker((socket, request) -> {});
    Await.result(plane.close());
    plane = plane(Duration.ofMillis(300), 2);

    assertThat(Await.failure(plane.send(worker, "r1", TcpEndToEndTest.request(1))))
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("no acknowledgement");
  }

  @Test
  void probe_asksForAPathNoWorkerServes_andAnyAckProvesTheWorkerRuns() throws Exception {
    CompletableFuture<RequestFrame> received = new CompletableFuture<>();
    NetServer server =
        rawWorker(
            (socket, frame) -> {
              received.complete(frame);
              // what Dynamo's read loop answers for a path it has no handler for
              RawPeers.ack(socket, Ack.rejected("Unknown endpoint: " + frame.path()));
            });

    Await.result(
        plane.probe(new WorkerEndpoint("w1", "127.0.0.1", server.actualPort(), "7f/generate")));

    RequestFrame frame = received.get(20, TimeUnit.SECONDS);
    assertThat(frame.path()).isEqualTo("7f/" + HealthProbe.PATH);
    assertThat(frame.payload().length()).isZero();
  }

  @Test
  void probe_failsWhenTheWorkerAcceptsConnectionsButNeverAnswers() throws Exception {
    // A stopped (SIGSTOP) worker: the kernel still completes the connect, nothing ever answers.
    AtomicInteger frames = new AtomicInteger();
    NetServer server = rawWorker((socket, frame) -> frames.incrementAndGet());
    Await.result(plane.close());
    plane = plane(Duration.ofMillis(300), 2);

    Throwable failure =
        Await.failure(
            plane.probe(new WorkerEndpoint("w1", "127.0.0.1", server.actualPort(), "generate")));

    assertThat(failure)
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("no answer to a health probe")
        .hasMessageContaining("within 300 ms");
    assertThat(((WorkerUnavailableException) failure).workerFault()).isTrue();
    assertThat(frames.get()).as("the probe frame reached the worker").isEqualTo(1);
  }

  @Test
  void probe_failsWhenTheWorkerClosesTheConnectionWithoutAnswering() throws Exception {
    NetServer server = rawWorker((socket, frame) -> socket.close());

    assertThat(
            Await.failure(
                plane.probe(
                    new WorkerEndpoint("w1", "127.0.0.1", server.actualPort(), "generate"))))
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("closed before it answered a health probe");
  }

  /** A worker that decodes request frames without reading their payload, as a probe has none. */
  private NetServer rawWorker(BiConsumer<NetSocket, RequestFrame> script) throws Exception {
    return Await.result(
        vertx
            .createNetServer()
            .connectHandler(
                socket -> {
                  RequestFrameDecoder decoder = new RequestFrameDecoder(RawPeers.MAX);
                  socket.handler(
                      chunk -> decoder.decode(chunk, frame -> script.accept(socket, frame)));
                })
            .listen(0, "127.0.0.1"));
  }

  @Test
  void workerThatAcksButNeverCallsBack_failsAfterTheCallHomeTimeout() throws Exception {
    WorkerEndpoint worker = worker((socket, request) -> RawPeers.ack(socket, Ack.ACCEPTED));
    Await.result(plane.close());
    plane =
        TcpTransport.client(
            vertx, TcpConfig.defaults("127.0.0.1").withCallHomeTimeout(Duration.ofMillis(300)));

    assertThat(Await.failure(plane.send(worker, "r1", TcpEndToEndTest.request(1))))
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("did not open its response stream within 300 ms");
  }

  @Test
  void workerThatCalledBack_mayTakeLongerThanTheCallHomeTimeoutForItsPrologue() throws Exception {
    Duration callHomeTimeout = Duration.ofSeconds(1);
    Await.result(plane.close());
    plane =
        TcpTransport.client(
            vertx, TcpConfig.defaults("127.0.0.1").withCallHomeTimeout(callHomeTimeout));
    // the prologue comes twice the call-home timeout after the handshake (a slow generate());
    // before the fix the request failed when the call-home timeout, started at the ack, ran out
    WorkerEndpoint worker =
        acceptAndCallHome(
            callHome ->
                vertx.setTimer(
                    2 * callHomeTimeout.toMillis(),
                    t ->
                        callHome.write(
                            Buffer.buffer()
                                .appendBuffer(Golden.load("prologue_ok.hex"))
                                .appendBuffer(Golden.load("data_item_finished.hex"))
                                .appendBuffer(Golden.load("complete_final.hex"))
                                .appendBuffer(Golden.load("sentinel.hex")))));

    assertThat(Collector.tokens(subscribe(worker).await())).containsExactly(13);
  }

  @Test
  void workerThatCalledBackButNeverSendsItsPrologue_failsAfterThePrologueTimeout()
      throws Exception {
    Await.result(plane.close());
    plane =
        TcpTransport.client(
            vertx, TcpConfig.defaults("127.0.0.1").withPrologueTimeout(Duration.ofMillis(300)));
    WorkerEndpoint worker = acceptAndCallHome(callHome -> {});

    assertThat(Await.failure(plane.send(worker, "r1", TcpEndToEndTest.request(1))))
        .isInstanceOfSatisfying(
            WorkerUnavailableException.class, e -> assertThat(e.workerFault()).isTrue())
        .hasMessageContaining("sent no prologue within 300 ms");
  }

  @Test
  void missingAck_givesUpTheConnectionAndEveryRequestOnIt() throws Exception {
    Await.result(plane.close());
    plane = plane(Duration.ofMillis(300), 1);
    AtomicInteger connections = new AtomicInteger();
    // one connection, so both requests wait for their acks on it; the worker never answers
    WorkerEndpoint worker = worker((socket, request) -> {}, connections);

    var first = plane.send(worker, "first", TcpEndToEndTest.request(1));
    var second = plane.send(worker, "second", TcpEndToEndTest.request(1));

    assertThat(Await.failure(first)).hasMessageContaining("no acknowledgement");
    assertThat(Await.failure(second)).hasMessageContaining("no acknowledgement");
    assertThat(((WorkerUnavailableException) Await.failure(second)).workerFault()).isTrue();
    // the next request does not queue behind the dead connection: it opens a new one
    plane.send(worker, "third", TcpEndToEndTest.request(1));
    Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> connections.get() == 2);
  }

  @Test
  void workerDroppingTheConnectionAfterAckingFailsTheRequest() throws Exception {
    WorkerEndpoint worker =
        worker(
            (socket, request) -> {
              RawPeers.ack(socket, Ack.ACCEPTED);
              socket.close();
            });

    assertThat(Await.failure(plane.send(worker, "r1", TcpEndToEndTest.request(1))))
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void errorPrologueFailsTheSend() throws Exception {
    WorkerEndpoint worker =
        acceptAndCallHome(callHome -> callHome.write(Golden.load("prologue_error.hex")));

    assertThat(Await.failure(plane.send(worker, "r1", TcpEndToEndTest.request(1))))
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("engine exploded");
  }

  @Test
  void streamWithoutCompleteFinalFails() throws Exception {
    WorkerEndpoint worker =
        acceptAndCallHome(
            callHome -> {
              callHome.write(Golden.load("prologue_ok.hex"));
              callHome.write(Golden.load("data_item.hex"));
              callHome.close();
            });

    Collector collector = subscribe(worker);

    assertThat(collector.awaitError())
        .isInstanceOf(WorkerStreamException.class)
        .hasMessageContaining("ended before generation completed");
    assertThat(Collector.tokens(collector.outputs)).containsExactly(11, 12);
  }

  @Test
  void sentinelWithoutCompleteFinalFails() throws Exception {
    WorkerEndpoint worker =
        acceptAndCallHome(
            callHome ->
                callHome.write(
                    Buffer.buffer()
                        .appendBuffer(Golden.load("prologue_ok.hex"))
                        .appendBuffer(Golden.load("data_item.hex"))
                        .appendBuffer(Golden.load("sentinel.hex"))));

    assertThat(subscribe(worker).awaitError()).isInstanceOf(WorkerStreamException.class);
  }

  @Test
  void engineErrorFinishReasonFailsTheStreamWithTheEnginesMessage() throws Exception {
    for (String fixture : List.of("error_finish_item.hex", "error_finish_item_string.hex")) {
      WorkerEndpoint worker =
          acceptAndCallHome(
              callHome ->
                  callHome.write(
                      Buffer.buffer()
                          .appendBuffer(Golden.load("prologue_ok.hex"))
                          .appendBuffer(Golden.load("data_item.hex"))
                          .appendBuffer(Golden.load(fixture))
                          .appendBuffer(Golden.load("complete_final.hex"))
                          .appendBuffer(Golden.load("sentinel.hex"))));

      Collector collector = subscribe(worker);

      assertThat(collector.awaitError())
          .as(fixture)
          .isInstanceOfSatisfying(
              WorkerStreamException.class, e -> assertThat(e.disconnected()).isFalse())
          .hasMessageContaining("boom");
      assertThat(Collector.tokens(collector.outputs)).as(fixture).containsExactly(11, 12);
    }
  }

  @Test
  void legacyErrorItemFailsTheStream() throws Exception {
    WorkerEndpoint worker =
        acceptAndCallHome(
            callHome ->
                callHome.write(
                    Buffer.buffer()
                        .appendBuffer(Golden.load("prologue_ok.hex"))
                        .appendBuffer(Golden.load("data_item.hex"))
                        .appendBuffer(Golden.load("error_item_legacy.hex"))
                        .appendBuffer(Golden.load("complete_final.hex"))
                        .appendBuffer(Golden.load("sentinel.hex"))));

    Collector collector = subscribe(worker);

    assertThat(collector.awaitError())
        .isInstanceOf(WorkerStreamException.class)
        .hasMessageContaining("engine exploded");
    assertThat(Collector.tokens(collector.outputs)).containsExactly(11, 12);
  }

  @Test
  void completeStreamFromGoldenFramesClosesAfterTheSentinel() throws Exception {
    CompletableFuture<Void> closedByFrontend = new CompletableFuture<>();
    WorkerEndpoint worker =
        acceptAndCallHome(
            callHome -> {
              callHome.closeHandler(v -> closedByFrontend.complete(null));
              callHome.write(
                  Buffer.buffer()
                      .appendBuffer(Golden.load("prologue_ok.hex"))
                      .appendBuffer(Golden.load("data_item.hex"))
                      .appendBuffer(Golden.load("data_item_finished.hex"))
                      .appendBuffer(Golden.load("complete_final.hex"))
                      .appendBuffer(Golden.load("sentinel.hex")));
            });

    Collector collector = subscribe(worker);

    assertThat(Collector.tokens(collector.await())).containsExactly(11, 12, 13);
    closedByFrontend.get(20, TimeUnit.SECONDS);
  }

  @Test
  void cancelSendsKillOnTheCallHomeSocket() throws Exception {
    CompletableFuture<TwoPartMessage> received = new CompletableFuture<>();
    WorkerEndpoint worker =
        acceptAndCallHome(
            callHome -> {
              TwoPartDecoder decoder = new TwoPartDecoder(RawPeers.MAX);
              callHome.handler(chunk -> decoder.decode(chunk, received::complete));
              callHome.write(Golden.load("prologue_ok.hex"));
            });
    ResponseStream stream = Await.result(plane.send(worker, "r1", TcpEndToEndTest.request(1)));
    Collector collector = new Collector();
    stream.subscribe(collector);

    stream.cancel();

    assertThat(received.get(20, TimeUnit.SECONDS))
        .isEqualTo(TwoPartDecoder.decodeWhole(Golden.load("kill.hex"), RawPeers.MAX));
    assertThat(collector.awaitError()).isInstanceOf(RequestCancelledException.class);
  }

  private Collector subscribe(WorkerEndpoint worker) throws Exception {
    ResponseStream stream = Await.result(plane.send(worker, "r1", TcpEndToEndTest.request(1)));
    Collector collector = new Collector();
    stream.subscribe(collector);
    return collector;
  }

  /** A worker that accepts, calls home, sends the handshake and then runs {@code script}. */
  private WorkerEndpoint acceptAndCallHome(Consumer<NetSocket> script) throws Exception {
    return worker(
        (socket, request) -> {
          RawPeers.ack(socket, Ack.ACCEPTED);
          RawPeers.callHome(vertx, request).onSuccess(script::accept);
        });
  }

  private WorkerEndpoint worker(BiConsumer<NetSocket, InboundRequest> script) throws Exception {
    return worker(script, new AtomicInteger());
  }

  private WorkerEndpoint worker(
      BiConsumer<NetSocket, InboundRequest> script, AtomicInteger connections) throws Exception {
    NetServer server = Await.result(RawPeers.worker(vertx, script, connections));
    return new WorkerEndpoint("raw", "127.0.0.1", server.actualPort(), "generate");
  }
}
