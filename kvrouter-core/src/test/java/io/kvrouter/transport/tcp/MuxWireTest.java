package io.kvrouter.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvrouter.config.ResponseStreamKind;
import io.kvrouter.config.ResponseStreams;
import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.PayloadCodec;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.testing.ManualTicker;
import io.kvrouter.transport.RequestPlane;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import io.vertx.junit5.VertxExtension;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Each side of {@code tcp_response_mux_v1} driven frame by frame by a hand-written counterpart: the
 * router's listener by a scripted worker, the worker server by a scripted frontend.
 */
@ExtendWith(VertxExtension.class)
class MuxWireTest {
  private static final int MAX = RawPeers.MAX;
  private Vertx vertx;

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
  }

  // --- the router's side, against a scripted worker ---

  @Test
  void theRouterAcksTheHandshake_resetsUnknownStreams_andCreditsEveryDataByte() throws Exception {
    CompletableFuture<InboundRequest> requested = new CompletableFuture<>();
    NetServer worker =
        Await.result(
            RawPeers.worker(
                vertx,
                (socket, request) -> {
                  RawPeers.ack(socket, Ack.ACCEPTED);
                  requested.complete(request);
                }));
    RequestPlane plane = muxPlane();
    var sent =
        plane.send(
            new WorkerEndpoint("w1", "127.0.0.1", worker.actualPort(), "generate"),
            "req-1",
            TcpEndToEndTest.request(3));
    ResponseMuxInfo info = requested.get(20, TimeUnit.SECONDS).mux();
    assertThat(info.context()).isEqualTo("req-1");
    assertThat(info.version()).isEqualTo(1);

    RawMuxWorker raw = RawMuxWorker.dial(vertx, info);
    assertThat(raw.ack.get(20, TimeUnit.SECONDS))
        .as("the connection ack, byte for byte")
        .isEqualTo(Golden.load("mux_handshake_ack.hex"));

    UUID stranger = UUID.randomUUID();
    MuxFrame strangerData =
        new MuxFrame(
            MuxFrameKind.DATA,
            stranger,
            ResponseEnvelope.item(StreamItem.of(EngineOutput.tokens(1)), PayloadCodec.JSON));
    raw.send(strangerData);
    assertThat(raw.next(f -> f.kind() == MuxFrameKind.RESET).streamId()).isEqualTo(stranger);

    UUID id = info.streamId();
    raw.send(new MuxFrame(MuxFrameKind.PROLOGUE, id, Buffer.buffer("{\"error\":null}")));
    MuxFrame item =
        new MuxFrame(
            MuxFrameKind.DATA,
            id,
            ResponseEnvelope.item(StreamItem.of(EngineOutput.tokens(3000)), PayloadCodec.JSON));
    raw.send(item);
    raw.send(new MuxFrame(MuxFrameKind.DATA, id, ResponseEnvelope.last(PayloadCodec.JSON)));
    raw.send(MuxFrame.empty(MuxFrameKind.END, id));

    ResponseStream stream = Await.result(sent);
    Collector collector = new Collector();
    stream.subscribe(collector);
    assertThat(Collector.tokens(collector.await())).containsExactly(3000);
    long dataBytes =
        strangerData.encodedLength()
            + item.encodedLength()
            + MuxFrame.HEADER_BYTES
            + ResponseEnvelope.last(PayloadCodec.JSON).length();
    assertThat(raw.next(f -> f.kind() == MuxFrameKind.CONNECTION_ACK && f.ackOffset() == dataBytes))
        .as("a cumulative ack of every Data byte, the stranger's included")
        .isNotNull();
    Await.result(plane.close());
  }

  @Test
  void theRouterRefusesAHandshakeForAnotherFrontend() throws Exception {
    CompletableFuture<InboundRequest> requested = new CompletableFuture<>();
    NetServer worker =
        Await.result(
            RawPeers.worker(
                vertx,
                (socket, request) -> {
                  RawPeers.ack(socket, Ack.ACCEPTED);
                  requested.complete(request);
                }));
    RequestPlane plane = muxPlane();
    plane.send(
        new WorkerEndpoint("w1", "127.0.0.1", worker.actualPort(), "generate"),
        "req-1",
        TcpEndToEndTest.request(3));
    ResponseMuxInfo info = requested.get(20, TimeUnit.SECONDS).mux();
    ResponseMuxInfo other =
        new ResponseMuxInfo(info.address(), UUID.randomUUID(), info.streamId(), "req-1", 1);

    RawMuxWorker raw = RawMuxWorker.dial(vertx, other);

    raw.closed.get(20, TimeUnit.SECONDS);
    assertThat(raw.ack).isNotDone();
    Await.result(plane.close());
  }

  /**
   * A mux stream has no handshake of its own, so the router does not wait for a call back: the wait
   * for the prologue alone is timed, by the prologue timeout (the stream idle timeout).
   */
  @Test
  void aMuxStreamWhosePrologueNeverComesFailsAtThePrologueTimeout() throws Exception {
    NetServer worker =
        Await.result(
            RawPeers.worker(vertx, (socket, request) -> RawPeers.ack(socket, Ack.ACCEPTED)));
    RequestPlane plane =
        TcpTransport.client(
            vertx,
            TcpEndToEndTest.config(4)
                .withCallHomeTimeout(java.time.Duration.ofSeconds(60))
                .withPrologueTimeout(java.time.Duration.ofMillis(300))
                .withResponseStreams(ResponseStreams.all(ResponseStreamKind.MUX)));

    Throwable failure =
        Await.failure(
            plane.send(
                new WorkerEndpoint("w1", "127.0.0.1", worker.actualPort(), "generate"),
                "req-1",
                TcpEndToEndTest.request(3)));

    assertThat(failure).hasMessageContaining("sent no prologue within 300 ms");
    Await.result(plane.close());
  }

  // --- the worker's side, against a scripted frontend ---

  @Test
  void theWorkerStopsAtItsStreamWindowUntilCreditsCome_andResetsUnknownStreams() throws Exception {
    TcpWorkerServer server = startWorker(new BulkEngine(vertx, 200, 500));
    RawMuxFrontend frontend = RawMuxFrontend.listen(vertx);
    UUID id = UUID.randomUUID();
    sendRequest(server, frontend, id, "req-9");

    JsonNode handshake = frontend.handshake.get(20, TimeUnit.SECONDS);
    assertThat(handshake.get("kind").asText()).isEqualTo("response_mux");
    assertThat(handshake.get("version").asInt()).isEqualTo(1);
    assertThat(handshake.get("frontend_server_id").asText()).isEqualTo(frontend.id.toString());
    assertThat(frontend.next(f -> f.kind() == MuxFrameKind.PROLOGUE).payload())
        .isEqualTo(Buffer.buffer("{\"error\":null}"));

    // acks keep the connection's window open; without WindowUpdates the stream stops at its own
    long received = frontend.drainData(id, WorkerMuxConnection.STREAM_WINDOW);
    assertThat(received).isLessThanOrEqualTo(WorkerMuxConnection.STREAM_WINDOW);
    assertThat(received).isGreaterThan(WorkerMuxConnection.STREAM_WINDOW - 1_000);
    assertThat(frontend.frames.poll(300, TimeUnit.MILLISECONDS))
        .as("nothing more without credits")
        .isNull();

    frontend.send(MuxFrame.windowUpdate(id, 10_000));
    long more = frontend.drainData(id, 10_000);
    assertThat(more).isBetween(10_000L - 1_000, 10_000L);

    UUID stranger = UUID.randomUUID();
    frontend.send(MuxFrame.windowUpdate(stranger, 1));
    assertThat(frontend.next(f -> f.kind() == MuxFrameKind.RESET).streamId()).isEqualTo(stranger);
    Await.result(server.close());
  }

  @Test
  void aKillCancelsTheEngine_andAnAckPastWhatWasSentBreaksTheConnection() throws Exception {
    ScriptedEngine engine = new ScriptedEngine(vertx, 100_000, 1, ScriptedEngine.Failure.NONE);
    TcpWorkerServer server = startWorker(engine);
    RawMuxFrontend frontend = RawMuxFrontend.listen(vertx);
    UUID killed = UUID.randomUUID();
    UUID broken = UUID.randomUUID();
    sendRequest(server, frontend, killed, "killed");
    frontend.next(f -> f.kind() == MuxFrameKind.DATA && f.streamId().equals(killed));
    sendRequest(server, frontend, broken, "broken");
    frontend.next(f -> f.kind() == MuxFrameKind.DATA && f.streamId().equals(broken));

    frontend.send(MuxFrame.empty(MuxFrameKind.KILL, killed));
    engine.run("killed").cancelled.get(20, TimeUnit.SECONDS);

    frontend.send(MuxFrame.connectionAck(Long.MAX_VALUE / 2));
    engine.run("broken").cancelled.get(20, TimeUnit.SECONDS);
    frontend.closed.get(20, TimeUnit.SECONDS);
    Await.result(server.close());
  }

  /** Stop is the graceful cancel: the engine stops and the stream ends as a finished one. */
  @Test
  void aStopEndsTheStreamCleanly() throws Exception {
    ScriptedEngine engine = new ScriptedEngine(vertx, 100_000, 1, ScriptedEngine.Failure.NONE);
    TcpWorkerServer server = startWorker(engine);
    RawMuxFrontend frontend = RawMuxFrontend.listen(vertx);
    UUID id = UUID.randomUUID();
    sendRequest(server, frontend, id, "stopped");
    frontend.next(f -> f.kind() == MuxFrameKind.DATA && f.streamId().equals(id));

    frontend.send(MuxFrame.empty(MuxFrameKind.STOP, id));

    engine.run("stopped").cancelled.get(20, TimeUnit.SECONDS);
    assertThat(
            frontend
                .next(f -> f.streamId().equals(id) && !f.payload().toString().contains("token_ids"))
                .payload())
        .as("no error item: the stream was stopped, not broken")
        .isEqualTo(ResponseEnvelope.last(PayloadCodec.JSON));
    assertThat(frontend.next(f -> f.streamId().equals(id) && f.kind() != MuxFrameKind.DATA).kind())
        .isEqualTo(MuxFrameKind.END);
    Await.result(server.close());
  }

  @Test
  void theWorkerClosesAFrontendsConnectionsOnceIdleForTheTtl() throws Exception {
    ManualTicker ticker = new ManualTicker();
    RawMuxFrontend frontend = RawMuxFrontend.listen(vertx);
    MuxClientPool pool =
        new MuxClientPool(
            vertx,
            PlaneClient.create(vertx, io.kvrouter.config.TcpConfig.defaults("127.0.0.1")),
            MAX,
            4,
            ticker);
    ResponseMuxInfo info =
        new ResponseMuxInfo(frontend.address(), frontend.id, UUID.randomUUID(), "r1", 1);

    WorkerMuxConnection first = Await.result(pool.connection(info));
    ticker.advance(MuxClientPool.IDLE_TTL.minusSeconds(1));
    Await.result(pool.retireIdle());
    assertThat(Await.result(pool.connection(info))).isSameAs(first);

    ticker.advance(MuxClientPool.IDLE_TTL);
    Await.result(pool.retireIdle());
    frontend.closed.get(20, TimeUnit.SECONDS);
    WorkerMuxConnection second = Await.result(pool.connection(info));

    assertThat(second).isNotSameAs(first);
    assertThat(pool.connectionsOpened()).isEqualTo(2);
    assertThat(frontend.connections).hasValue(2);
    Await.result(pool.close());
  }

  private RequestPlane muxPlane() {
    return TcpTransport.client(
        vertx,
        TcpEndToEndTest.config(4).withResponseStreams(ResponseStreams.all(ResponseStreamKind.MUX)));
  }

  private TcpWorkerServer startWorker(io.kvrouter.protocol.InferenceEngine engine)
      throws Exception {
    return (TcpWorkerServer)
        Await.result(
            TcpWorkerServer.start(
                vertx,
                "127.0.0.1",
                0,
                Map.of("generate", engine),
                Map.of(),
                TcpEndToEndTest.config(4),
                Set.of(ResponseStreamKind.MUX),
                1));
  }

  /** Sends a generate request whose response goes to {@code frontend} as stream {@code id}. */
  private void sendRequest(
      TcpWorkerServer server, RawMuxFrontend frontend, UUID id, String requestId) throws Exception {
    ResponseMuxInfo info = new ResponseMuxInfo(frontend.address(), frontend.id, id, requestId, 1);
    RequestControlMessage control =
        RequestControlMessage.singleInManyOut(requestId, info.connectionInfo());
    Buffer payload =
        TwoPartEncoder.encode(
            new TwoPartMessage(WireJson.write(control), WireJson.write(TcpEndToEndTest.request(1))),
            MAX);
    NetSocket socket = Await.result(vertx.createNetClient().connect(server.port(), "127.0.0.1"));
    socket.write(
        RequestFrameEncoder.encode(
            new RequestFrame("generate", Map.of("request-id", requestId), payload), MAX));
  }

  /** A worker's mux connection, scripted: handshake, then whatever the test sends. */
  private static final class RawMuxWorker {
    final CompletableFuture<Buffer> ack = new CompletableFuture<>();
    final CompletableFuture<Void> closed = new CompletableFuture<>();
    final BlockingQueue<MuxFrame> frames = new LinkedBlockingQueue<>();
    private NetSocket socket;

    static RawMuxWorker dial(Vertx vertx, ResponseMuxInfo info) throws Exception {
      RawMuxWorker raw = new RawMuxWorker();
      HostAndPort address = HostAndPort.parse(info.address());
      raw.socket = Await.result(vertx.createNetClient().connect(address.port(), address.host()));
      MuxFrameDecoder decoder = new MuxFrameDecoder(MAX);
      Buffer handshake = Buffer.buffer();
      raw.socket.handler(
          chunk -> {
            if (!raw.ack.isDone()) {
              handshake.appendBuffer(chunk);
              if (handshake.length() >= 52) {
                raw.ack.complete(handshake.getBuffer(0, 52));
                decoder.decode(handshake.getBuffer(52, handshake.length()), raw.frames::add);
              }
            } else {
              decoder.decode(chunk, raw.frames::add);
            }
          });
      raw.socket.closeHandler(v -> raw.closed.complete(null));
      raw.socket.write(MuxHandshake.of(info.frontendServerId(), UUID.randomUUID()).encode(MAX));
      return raw;
    }

    void send(MuxFrame frame) {
      socket.write(MuxFrameEncoder.encode(frame, MAX));
    }

    MuxFrame next(Predicate<MuxFrame> wanted) throws InterruptedException {
      return poll(frames, wanted);
    }
  }

  /** A frontend's listener, scripted: answers one handshake with the ack, then records frames. */
  private static final class RawMuxFrontend {
    final UUID id = UUID.randomUUID();
    final java.util.concurrent.atomic.AtomicInteger connections =
        new java.util.concurrent.atomic.AtomicInteger();
    final CompletableFuture<JsonNode> handshake = new CompletableFuture<>();
    final CompletableFuture<Void> closed = new CompletableFuture<>();
    final BlockingQueue<MuxFrame> frames = new LinkedBlockingQueue<>();
    private final CompletableFuture<NetSocket> socket = new CompletableFuture<>();
    private NetServer server;
    private long decoded;

    static RawMuxFrontend listen(Vertx vertx) throws Exception {
      RawMuxFrontend frontend = new RawMuxFrontend();
      frontend.server =
          Await.result(
              vertx
                  .createNetServer()
                  .connectHandler(
                      socket -> {
                        frontend.connections.incrementAndGet();
                        TwoPartDecoder first = new TwoPartDecoder(MAX);
                        MuxFrameDecoder rest = new MuxFrameDecoder(MAX);
                        boolean[] acked = {false};
                        socket.handler(
                            chunk -> {
                              if (!acked[0]) {
                                first.decode(
                                    chunk,
                                    frame -> {
                                      acked[0] = true;
                                      frontend.handshake.complete(
                                          WireJson.read(
                                              frame.header(), JsonNode.class, "handshake"));
                                      socket.write(MuxHandshake.ack(MAX));
                                    });
                              } else {
                                rest.decode(chunk, frontend.frames::add);
                              }
                            });
                        socket.closeHandler(v -> frontend.closed.complete(null));
                        frontend.socket.complete(socket);
                      })
                  .listen(0, "127.0.0.1"));
      return frontend;
    }

    String address() {
      return "127.0.0.1:" + server.actualPort();
    }

    void send(MuxFrame frame) throws Exception {
      socket.get(20, TimeUnit.SECONDS).write(MuxFrameEncoder.encode(frame, MAX));
    }

    MuxFrame next(Predicate<MuxFrame> wanted) throws InterruptedException {
      return poll(frames, wanted);
    }

    /**
     * Reads stream {@code id}'s Data frames, acknowledging every one on the connection, until the
     * stream has used about {@code window} bytes; returns the bytes it used.
     */
    long drainData(UUID id, long window) throws Exception {
      long used = 0;
      while (used < window - 1_000) {
        MuxFrame frame = next(f -> f.kind() == MuxFrameKind.DATA && f.streamId().equals(id));
        used += frame.encodedLength();
        decoded += frame.encodedLength();
        send(MuxFrame.connectionAck(decoded));
      }
      return used;
    }
  }

  private static MuxFrame poll(BlockingQueue<MuxFrame> frames, Predicate<MuxFrame> wanted)
      throws InterruptedException {
    while (true) {
      MuxFrame frame = frames.poll(20, TimeUnit.SECONDS);
      if (frame == null) {
        throw new AssertionError("no such frame");
      }
      if (wanted.test(frame)) {
        return frame;
      }
    }
  }
}
