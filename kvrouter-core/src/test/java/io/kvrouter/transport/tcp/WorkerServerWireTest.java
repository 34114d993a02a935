package io.kvrouter.transport.tcp;

import static io.kvrouter.transport.tcp.Golden.bytes;
import static io.kvrouter.transport.tcp.Golden.u16;
import static io.kvrouter.transport.tcp.Golden.u32;
import static io.kvrouter.transport.tcp.Golden.utf8;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.transport.RequestPlane;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetSocket;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The worker server, driven byte by byte by a hand-written frontend. */
@ExtendWith(VertxExtension.class)
class WorkerServerWireTest {
  private Vertx vertx;

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
  }

  @Test
  void answersWithTheDocumentedSequence() throws Exception {
    ScriptedEngine engine = new ScriptedEngine(vertx, 3, 0, ScriptedEngine.Failure.NONE);
    RawPeers.Frontend frontend = RawPeers.Frontend.listen(vertx);
    Connection connection = connect(startServer(engine, TcpConfig.DEFAULT_MAX_MESSAGE_SIZE));

    connection.socket.write(requestFrame("generate", "req-42", "subj-7", frontend.address()));

    assertThat(connection.nextAck()).isEqualTo(Ack.ACCEPTED);
    assertThat(frontend.next())
        .isEqualTo(
            TwoPartMessage.headerOnly(
                Buffer.buffer("{\"subject\":\"subj-7\",\"stream_type\":\"response\"}")));
    assertThat(frontend.next())
        .isEqualTo(TwoPartMessage.headerOnly(Buffer.buffer("{\"error\":null}")));
    for (int i = 0; i < 3; i++) {
      EngineOutput expected =
          i == 2
              ? EngineOutput.finished(FinishReason.LENGTH, 7000 + i)
              : EngineOutput.tokens(7000 + i);
      assertThat(item(frontend.next())).isEqualTo(ResponseEnvelope.of(StreamItem.of(expected)));
    }
    assertThat(frontend.next())
        .isEqualTo(TwoPartMessage.bodyOnly(Buffer.buffer("{\"complete_final\":true}")));
    assertThat(frontend.next()).isEqualTo(TwoPartMessage.headerOnly(Buffer.buffer("\"sentinel\"")));
    assertThat(engine.run("req-42").request.get(5, TimeUnit.SECONDS).tokenIds())
        .containsExactly(7, 1, 2);
  }

  @Test
  void answersAJsonEndpointWithOneItemHoldingTheAnswer() throws Exception {
    RawPeers.Frontend frontend = RawPeers.Frontend.listen(vertx);
    TcpWorkerServer server =
        (TcpWorkerServer)
            Await.result(
                TcpTransport.server(
                    vertx,
                    "127.0.0.1",
                    0,
                    Map.of(),
                    Map.of(
                        "worker_kv_indexer_query_dp0",
                        question ->
                            CompletableFuture.completedFuture(
                                "{\"TooNew\":{\"newest_available\":5}}".getBytes(UTF_8))),
                    TcpEndToEndTest.config(2)));
    Connection connection = connect(server);

    connection.socket.write(
        requestFrame(
            "worker_kv_indexer_query_dp0",
            "q-1",
            "subj-9",
            frontend.address(),
            Buffer.buffer("{\"worker_id\":7}")));

    assertThat(connection.nextAck()).isEqualTo(Ack.ACCEPTED);
    assertThat(frontend.next())
        .isEqualTo(
            TwoPartMessage.headerOnly(
                Buffer.buffer("{\"subject\":\"subj-9\",\"stream_type\":\"response\"}")));
    assertThat(frontend.next())
        .isEqualTo(TwoPartMessage.headerOnly(Buffer.buffer("{\"error\":null}")));
    assertThat(frontend.next())
        .isEqualTo(
            TwoPartMessage.bodyOnly(
                Buffer.buffer(
                    "{\"data\":{\"TooNew\":{\"newest_available\":5}},"
                        + "\"complete_final\":false}")));
    assertThat(frontend.next())
        .isEqualTo(TwoPartMessage.bodyOnly(Buffer.buffer("{\"complete_final\":true}")));
    assertThat(frontend.next()).isEqualTo(TwoPartMessage.headerOnly(Buffer.buffer("\"sentinel\"")));
    Await.result(server.close());
  }

  @Test
  void acknowledgesPipelinedRequestsInOrder() throws Exception {
    ScriptedEngine engine = new ScriptedEngine(vertx, 1, 0, ScriptedEngine.Failure.NONE);
    RawPeers.Frontend frontend = RawPeers.Frontend.listen(vertx);
    Connection connection = connect(startServer(engine, TcpConfig.DEFAULT_MAX_MESSAGE_SIZE));
    Buffer badPayload =
        RequestFrameEncoder.encode(
            new RequestFrame("generate", Map.of(), Buffer.buffer("not a TwoPart frame")),
            RawPeers.MAX);
    Buffer badPath = bytes(u16(2), new byte[] {(byte) 0xC3, (byte) 0x28}, u16(0), u32(0));

    connection.socket.write(
        Buffer.buffer()
            .appendBuffer(requestFrame("nope", "a", "s1", frontend.address()))
            .appendBuffer(requestFrame("generate", "b", "s2", frontend.address()))
            .appendBuffer(badPayload)
            .appendBuffer(badPath));

    assertThat(connection.nextAck())
        .isEqualTo(Ack.rejected("Server unavailable: unknown endpoint nope"));
    assertThat(connection.nextAck()).isEqualTo(Ack.ACCEPTED);
    assertThat(connection.nextAck().rejection()).startsWith("Server unavailable: invalid request:");
    assertThat(connection.nextAck()).isEqualTo(Ack.rejected("Invalid endpoint path"));
    engine.run("b").finished.get(20, TimeUnit.SECONDS);
  }

  @Test
  void closingTheCallHomeSocketCancelsTheEngine() throws Exception {
    ScriptedEngine engine = new ScriptedEngine(vertx, 10_000, 5, ScriptedEngine.Failure.NONE);
    RawPeers.Frontend frontend = RawPeers.Frontend.listen(vertx);
    Connection connection = connect(startServer(engine, TcpConfig.DEFAULT_MAX_MESSAGE_SIZE));
    connection.socket.write(requestFrame("generate", "r1", "s1", frontend.address()));
    frontend.next(); // handshake
    frontend.next(); // prologue
    frontend.next(); // first item

    frontend.close();

    engine.run("r1").cancelled.get(20, TimeUnit.SECONDS);
  }

  @ParameterizedTest
  @EnumSource(
      value = ControlMessage.class,
      names = {"STOP", "KILL"})
  void controlMessageCancelsTheEngine(ControlMessage control) throws Exception {
    ScriptedEngine engine = new ScriptedEngine(vertx, 10_000, 5, ScriptedEngine.Failure.NONE);
    RawPeers.Frontend frontend = RawPeers.Frontend.listen(vertx);
    Connection connection = connect(startServer(engine, TcpConfig.DEFAULT_MAX_MESSAGE_SIZE));
    connection.socket.write(requestFrame("generate", "r1", "s1", frontend.address()));
    frontend.next(); // handshake
    frontend.next(); // prologue
    frontend.next(); // first item

    frontend.write(Golden.load(control.wireName() + ".hex"));

    engine.run("r1").cancelled.get(20, TimeUnit.SECONDS);
    frontend.close();
  }

  @Test
  void oversizedFrameClosesOnlyItsConnection() throws Exception {
    ScriptedEngine engine = new ScriptedEngine(vertx, 2, 0, ScriptedEngine.Failure.NONE);
    TcpWorkerServer server = startServer(engine, 2048);
    // 2 KiB: a request as Dynamo writes it, nulls included, is about 1 KiB
    Connection healthy = connect(server);
    Connection offender = connect(server);

    offender.socket.write(bytes(u16(8), utf8("generate"), u16(0), u32(4096)));

    assertThat(offender.nextAck().rejection())
        .startsWith("Read error:")
        .contains("exceeds the limit of 2048");
    offender.closed.get(20, TimeUnit.SECONDS);

    RawPeers.Frontend frontend = RawPeers.Frontend.listen(vertx);
    healthy.socket.write(requestFrame("generate", "r1", "s1", frontend.address()));
    assertThat(healthy.nextAck()).isEqualTo(Ack.ACCEPTED);
    engine.run("r1").finished.get(20, TimeUnit.SECONDS);

    RequestPlane plane =
        TcpTransport.client(
            vertx,
            new TcpConfig(
                2048, Duration.ofSeconds(5), 2, Duration.ofSeconds(5), "127.0.0.1", 0, null));
    ResponseStream stream =
        Await.result(
            plane.send(
                new WorkerEndpoint("w1", "127.0.0.1", server.port(), "generate"),
                "r2",
                TcpEndToEndTest.request(9)));
    Collector collector = new Collector();
    stream.subscribe(collector);
    assertThat(Collector.tokens(collector.await())).containsExactly(9000, 9001);
    Await.result(plane.close());
  }

  private TcpWorkerServer startServer(ScriptedEngine engine, int maxMessageSize) throws Exception {
    TcpConfig config =
        new TcpConfig(
            maxMessageSize, Duration.ofSeconds(5), 2, Duration.ofSeconds(5), "127.0.0.1", 0, null);
    return (TcpWorkerServer)
        Await.result(
            TcpTransport.server(vertx, "127.0.0.1", 0, Map.of("generate", engine), config));
  }

  private Connection connect(TcpWorkerServer server) throws Exception {
    NetSocket socket = Await.result(vertx.createNetClient().connect(server.port(), "127.0.0.1"));
    Connection connection = new Connection(socket);
    AckDecoder decoder = new AckDecoder(RawPeers.MAX);
    socket.handler(chunk -> decoder.decode(chunk, connection.acks::add));
    socket.closeHandler(v -> connection.closed.complete(null));
    return connection;
  }

  private static Buffer requestFrame(
      String path, String requestId, String subject, String callHome) {
    return requestFrame(
        path, requestId, subject, callHome, WireJson.write(TcpEndToEndTest.request(7)));
  }

  private static Buffer requestFrame(
      String path, String requestId, String subject, String callHome, Buffer body) {
    RequestControlMessage control =
        RequestControlMessage.singleInManyOut(
            requestId,
            new ResponseStreamInfo(callHome, subject, requestId, ResponseStreamInfo.RESPONSE)
                .connectionInfo());
    Buffer payload =
        TwoPartEncoder.encode(new TwoPartMessage(WireJson.write(control), body), RawPeers.MAX);
    return RequestFrameEncoder.encode(
        new RequestFrame(path, Map.of("request-id", requestId), payload), RawPeers.MAX);
  }

  private static ResponseEnvelope<StreamItem> item(TwoPartMessage frame) {
    assertThat(frame.hasHeader()).isFalse();
    return WireJson.read(frame.body(), ResponseEnvelope.OF_OUTPUT, "item");
  }

  private static final class Connection {
    final NetSocket socket;
    final BlockingQueue<Ack> acks = new LinkedBlockingQueue<>();
    final CompletableFuture<Void> closed = new CompletableFuture<>();

    Connection(NetSocket socket) {
      this.socket = socket;
    }

    Ack nextAck() throws InterruptedException {
      Ack ack = acks.poll(20, TimeUnit.SECONDS);
      if (ack == null) {
        throw new AssertionError("no ack");
      }
      return ack;
    }
  }
}
