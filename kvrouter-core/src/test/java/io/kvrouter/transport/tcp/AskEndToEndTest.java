package io.kvrouter.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.kvrouter.transport.JsonEndpoint;
import io.kvrouter.transport.RequestPlane;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetServer;
import io.vertx.junit5.VertxExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link RequestPlane#ask} against {@link JsonEndpoint}s of a real worker server, over loopback.
 */
@ExtendWith(VertxExtension.class)
class AskEndToEndTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private Vertx vertx;
  private WorkerServer server;
  private RequestPlane plane;

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
  }

  @AfterEach
  void tearDown() throws Exception {
    if (plane != null) {
      Await.result(plane.close());
    }
    if (server != null) {
      Await.result(server.close());
    }
  }

  @Test
  void theAnswerComesBackAsTheItemsData() throws Exception {
    CompletableFuture<String> asked = new CompletableFuture<>();
    WorkerEndpoint endpoint =
        start(
            TcpEndToEndTest.config(2),
            "query_dp0",
            question -> {
              asked.complete(utf8(question));
              return CompletableFuture.completedFuture(
                  bytes("{\"TooNew\":{\"newest_available\":5}}"));
            });

    List<JsonNode> answer =
        Await.result(plane.ask(endpoint, "q1", bytes("{\"worker_id\":7}"), TIMEOUT));

    assertThat(asked.getNow(null)).isEqualTo("{\"worker_id\":7}");
    assertThat(answer).hasSize(1);
    assertThat(answer.get(0).toString()).isEqualTo("{\"TooNew\":{\"newest_available\":5}}");
  }

  @Test
  void anAnswerOfSeveralMegabytesArrivesWhole() throws Exception {
    String big = "{\"events\":\"" + "x".repeat(3 << 20) + "\"}";
    WorkerEndpoint endpoint =
        start(
            TcpEndToEndTest.config(2),
            "dump",
            question -> CompletableFuture.supplyAsync(() -> bytes(big)));

    List<JsonNode> answer = Await.result(plane.ask(endpoint, "q1", bytes("{}"), TIMEOUT));

    assertThat(answer.get(0).get("events").asText()).hasSize(3 << 20);
  }

  @Test
  void aFailingEndpointRefusesTheCallWithItsReason() throws Exception {
    WorkerEndpoint endpoint =
        start(
            TcpEndToEndTest.config(2),
            "query_dp0",
            question -> CompletableFuture.failedFuture(new IllegalStateException("no such rank")));

    Throwable failure = Await.failure(plane.ask(endpoint, "q1", bytes("{}"), TIMEOUT));

    assertThat(failure)
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("no such rank");
  }

  @Test
  void anEndpointThatAnswersNothingRefusesTheCall() throws Exception {
    WorkerEndpoint endpoint =
        start(
            TcpEndToEndTest.config(2),
            "query_dp0",
            question -> CompletableFuture.completedFuture(null));

    assertThat(Await.failure(plane.ask(endpoint, "q1", bytes("{}"), TIMEOUT)))
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("answered nothing");
  }

  @Test
  void anAnswerLargerThanAFrameIsARefusalNotSilence() throws Exception {
    TcpConfig small =
        new TcpConfig(
            64 * 1024, Duration.ofSeconds(5), 2, Duration.ofSeconds(5), "127.0.0.1", 0, null);
    WorkerEndpoint endpoint =
        start(
            small,
            "dump",
            question ->
                CompletableFuture.completedFuture(bytes("\"" + "x".repeat(100_000) + "\"")));

    Throwable failure = Await.failure(plane.ask(endpoint, "q1", bytes("{}"), TIMEOUT));

    assertThat(failure)
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("65536");
  }

  @Test
  void anUnknownPathIsRefused() throws Exception {
    WorkerEndpoint endpoint =
        start(
            TcpEndToEndTest.config(2),
            "query_dp0",
            question -> CompletableFuture.completedFuture(bytes("1")));
    WorkerEndpoint elsewhere =
        new WorkerEndpoint("w1", endpoint.host(), endpoint.port(), "query_dp1");

    Throwable failure = Await.failure(plane.ask(elsewhere, "q1", bytes("{}"), TIMEOUT));

    assertThat(failure)
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("unknown endpoint query_dp1");
  }

  @Test
  void anAnswerThatNeverComesFailsAtTheTimeout() throws Exception {
    WorkerEndpoint endpoint =
        start(TcpEndToEndTest.config(2), "query_dp0", question -> new CompletableFuture<>());

    Throwable failure =
        Await.failure(plane.ask(endpoint, "q1", bytes("{}"), Duration.ofMillis(300)));

    assertThat(failure).hasMessageContaining("no answer within 300 ms");
  }

  /** The answer of a Dynamo worker's KV query engine, written as it does: items not annotated. */
  @Test
  void readsAnAnswerAsADynamoWorkerStreamsIt() throws Exception {
    NetServer worker =
        Await.result(
            RawPeers.worker(
                vertx,
                (socket, request) -> {
                  RawPeers.ack(socket, Ack.ACCEPTED);
                  RawPeers.callHome(vertx, request)
                      .onSuccess(
                          home -> {
                            home.write(RawPeers.FRAMES.prologue(StreamPrologue.OK));
                            home.write(
                                body(
                                    "{\"data\":{\"TooNew\":{\"requested_start\":3,"
                                        + "\"requested_end\":null,\"newest_available\":2}},\"complete_final\":false}"));
                            home.write(body("{\"complete_final\":true}"));
                            home.write(RawPeers.FRAMES.control(ControlMessage.SENTINEL));
                          });
                }));
    plane = TcpTransport.client(vertx, TcpEndToEndTest.config(2));
    WorkerEndpoint endpoint =
        new WorkerEndpoint("7", "127.0.0.1", worker.actualPort(), "worker_kv_indexer_query_dp0");

    List<JsonNode> answer =
        Await.result(plane.ask(endpoint, "q1", bytes("{\"worker_id\":7}"), TIMEOUT));

    assertThat(answer).hasSize(1);
    assertThat(answer.get(0).toString())
        .isEqualTo(
            "{\"TooNew\":{\"requested_start\":3,\"requested_end\":null,"
                + "\"newest_available\":2}}");
    Await.result(worker.close());
  }

  private static Buffer body(String json) {
    return TwoPartEncoder.encode(TwoPartMessage.bodyOnly(Buffer.buffer(json)), RawPeers.MAX);
  }

  private WorkerEndpoint start(TcpConfig config, String path, JsonEndpoint endpoint)
      throws Exception {
    server =
        Await.result(
            TcpTransport.server(vertx, "127.0.0.1", 0, Map.of(), Map.of(path, endpoint), config));
    plane = TcpTransport.client(vertx, config);
    return new WorkerEndpoint("w1", "127.0.0.1", server.port(), path);
  }

  private static byte[] bytes(String json) {
    return json.getBytes(StandardCharsets.UTF_8);
  }

  private static String utf8(byte[] json) {
    return new String(json, StandardCharsets.UTF_8);
  }
}
