package io.kvrouter.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvrouter.config.HttpRpcClientConfig;
import io.kvrouter.config.HttpRpcServerConfig;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.InvalidRequestException;
import io.kvrouter.protocol.PayloadCodec;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.kvrouter.transport.JsonEndpoint;
import io.kvrouter.transport.RequestPlane;
import io.kvrouter.transport.httprpc.HttpRpcClient;
import io.kvrouter.transport.httprpc.HttpRpcServer;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.NetServer;
import io.vertx.junit5.VertxExtension;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Dynamo's HTTP request plane over loopback: the router's TCP plane posting envelopes through
 * {@link HttpRpcClient} to a worker's {@link HttpRpcServer}, the responses coming back over TCP
 * call-home; and the exchange as a plain HTTP server reads it.
 */
@ExtendWith(VertxExtension.class)
class HttpRpcPlaneTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX = 1 << 20;

  private Vertx vertx;
  private final List<RequestPlane> planes = new ArrayList<>();
  private final List<HttpRpcServer> servers = new ArrayList<>();
  private final List<WorkerServer> tcpServers = new ArrayList<>();

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
  }

  @AfterEach
  void tearDown() throws Exception {
    for (RequestPlane plane : planes) {
      Await.result(plane.close());
    }
    for (HttpRpcServer server : servers) {
      Await.result(server.close());
    }
    for (WorkerServer server : tcpServers) {
      Await.result(server.close());
    }
  }

  private RequestPlane plane(boolean priorKnowledge) {
    return plane(priorKnowledge, TcpEndToEndTest.config(4), Duration.ofSeconds(5));
  }

  private RequestPlane plane(boolean priorKnowledge, TcpConfig config, Duration timeout) {
    RequestPlane plane =
        TcpTransport.client(
            vertx,
            config,
            HttpRpcClient.create(vertx, new HttpRpcClientConfig(timeout, priorKnowledge), config));
    planes.add(plane);
    return plane;
  }

  private HttpRpcServer worker(
      Map<String, io.kvrouter.protocol.InferenceEngine> engines,
      Map<String, JsonEndpoint> endpoints)
      throws Exception {
    return worker(engines, endpoints, MAX);
  }

  private HttpRpcServer worker(
      Map<String, io.kvrouter.protocol.InferenceEngine> engines,
      Map<String, JsonEndpoint> endpoints,
      int maxBody)
      throws Exception {
    CallHomeServer callHome =
        CallHomeServer.create(vertx, engines, endpoints, TcpEndToEndTest.config(4));
    HttpRpcServer server =
        Await.result(
            HttpRpcServer.start(
                vertx, new HttpRpcServerConfig("127.0.0.1", 0, "/v1/rpc"), callHome, maxBody));
    servers.add(server);
    return server;
  }

  private HttpRpcServer generateWorker(int outputs, int maxBody) throws Exception {
    return worker(
        Map.of("generate", new ScriptedEngine(vertx, outputs, 0, ScriptedEngine.Failure.NONE)),
        Map.of(),
        maxBody);
  }

  /** A request of {@code count} large token ids: about 7 JSON bytes each. */
  private static io.kvrouter.protocol.PreprocessedRequest longPrompt(int count) {
    int[] tokens = new int[count];
    java.util.Arrays.fill(tokens, 100_000);
    return TcpEndToEndTest.request(100_000, tokens);
  }

  private static WorkerEndpoint endpoint(String id, String url) {
    return WorkerEndpoint.dynamoHttp(id, URI.create(url), PayloadCodec.JSON);
  }

  private static List<EngineOutput> collect(ResponseStream stream) throws Exception {
    Collector collector = new Collector();
    stream.subscribe(collector);
    return collector.await();
  }

  @ParameterizedTest(name = "prior knowledge {0}")
  @ValueSource(booleans = {false, true})
  void streamsThroughAWorkerOnTheHttpPlane(boolean priorKnowledge) throws Exception {
    ScriptedEngine engine = new ScriptedEngine(vertx, 5, 0, ScriptedEngine.Failure.NONE);
    HttpRpcServer server = worker(Map.of("generate", engine), Map.of());
    String url = server.urlsByEndpoint().get("generate");
    assertThat(url).isEqualTo("http://127.0.0.1:" + server.port() + "/v1/rpc/generate");
    RequestPlane plane = plane(priorKnowledge);
    WorkerEndpoint worker = endpoint("w1", url);

    for (int i = 1; i <= 20; i++) {
      List<EngineOutput> outputs =
          collect(Await.result(plane.send(worker, "r" + i, TcpEndToEndTest.request(i))));
      assertThat(Collector.tokens(outputs)).containsExactly(ScriptedEngine.expectedTokens(i, 5));
    }
    Await.result(plane.probe(worker));
  }

  @Test
  void oneRouterServesTcpAndHttpWorkers_andAsksOverHttp() throws Exception {
    ScriptedEngine overHttp = new ScriptedEngine(vertx, 3, 0, ScriptedEngine.Failure.NONE);
    ScriptedEngine overTcp = new ScriptedEngine(vertx, 4, 0, ScriptedEngine.Failure.NONE);
    CompletableFuture<String> asked = new CompletableFuture<>();
    HttpRpcServer http =
        worker(
            Map.of("generate", overHttp),
            Map.of(
                "query",
                question -> {
                  asked.complete(new String(question, StandardCharsets.UTF_8));
                  return CompletableFuture.completedFuture(
                      "{\"answer\":42}".getBytes(StandardCharsets.UTF_8));
                }));
    WorkerServer tcp =
        Await.result(
            TcpTransport.server(
                vertx, "127.0.0.1", 0, Map.of("generate", overTcp), TcpEndToEndTest.config(4)));
    tcpServers.add(tcp);
    RequestPlane plane = plane(false);
    WorkerEndpoint httpWorker = endpoint("h", http.urlsByEndpoint().get("generate"));
    WorkerEndpoint tcpWorker = new WorkerEndpoint("t", "127.0.0.1", tcp.port(), "generate");

    assertThat(Collector.tokens(collect(Await.result(plane.send(httpWorker, "a", req(9))))))
        .containsExactly(ScriptedEngine.expectedTokens(9, 3));
    assertThat(Collector.tokens(collect(Await.result(plane.send(tcpWorker, "b", req(9))))))
        .containsExactly(ScriptedEngine.expectedTokens(9, 4));
    Await.result(plane.probe(tcpWorker));

    List<JsonNode> answer =
        Await.result(
            plane.ask(
                httpWorker.sibling("query"),
                "q1",
                "{\"worker_id\":7}".getBytes(StandardCharsets.UTF_8),
                Duration.ofSeconds(10)));
    assertThat(httpWorker.sibling("query").url().getPath()).isEqualTo("/v1/rpc/query");
    assertThat(asked.get(5, TimeUnit.SECONDS)).isEqualTo("{\"worker_id\":7}");
    assertThat(answer).extracting(JsonNode::toString).containsExactly("{\"answer\":42}");
  }

  private static io.kvrouter.protocol.PreprocessedRequest req(int first) {
    return TcpEndToEndTest.request(first);
  }

  /** What a plain HTTP server reads from the router. */
  private record Seen(
      String method, String path, HttpVersion version, Map<String, String> headers, Buffer body) {}

  @ParameterizedTest(name = "prior knowledge {0}")
  @ValueSource(booleans = {false, true})
  void postsTheEnvelope_withDynamosHeaders_onTheHttpVersionAsked(boolean priorKnowledge)
      throws Exception {
    BlockingQueue<Seen> seen = new LinkedBlockingQueue<>();
    HttpServer server =
        Await.result(
            vertx
                .createHttpServer()
                .requestHandler(
                    request ->
                        request
                            .body()
                            .onSuccess(
                                body -> {
                                  Map<String, String> headers = new java.util.TreeMap<>();
                                  request
                                      .headers()
                                      .forEach(
                                          h -> headers.put(h.getKey().toLowerCase(), h.getValue()));
                                  headers.put(":peer", request.remoteAddress().hostAddress());
                                  seen.add(
                                      new Seen(
                                          request.method().name(),
                                          request.path(),
                                          request.version(),
                                          headers,
                                          body));
                                  request.response().setStatusCode(202).end();
                                }))
                .listen(0, "127.0.0.1"));
    try {
      // a listener on every address: the worker is told the local address the POST left from
      RequestPlane plane =
          plane(priorKnowledge, TcpConfig.defaults("0.0.0.0"), Duration.ofSeconds(5));
      WorkerEndpoint worker =
          endpoint("w1", "http://127.0.0.1:" + server.actualPort() + "/v1/rpc/generate");
      long before = System.currentTimeMillis() * 1_000_000L;
      // accepted, then never called back: the call fails later, which this test does not await
      plane.send(worker, "router-1", TcpEndToEndTest.request(7));

      Seen post = seen.poll(20, TimeUnit.SECONDS);
      assertThat(post).isNotNull();
      assertThat(post.method()).isEqualTo("POST");
      assertThat(post.path()).isEqualTo("/v1/rpc/generate");
      assertThat(post.version())
          .isEqualTo(priorKnowledge ? HttpVersion.HTTP_2 : HttpVersion.HTTP_1_1);
      assertThat(post.headers())
          .containsEntry("content-type", "application/octet-stream")
          .containsEntry("request-id", "router-1")
          .containsEntry("x-request-id", "router-1");
      long sentAt = Long.parseLong(post.headers().get("x-frontend-send-ts-ns"));
      assertThat(sentAt).isBetween(before - 1_000_000_000L, before + 60_000_000_000L);

      ByteBuffer envelope = ByteBuffer.wrap(post.body().getBytes());
      int headerLength = (int) envelope.getLong();
      int bodyLength = (int) envelope.getLong();
      assertThat(envelope.getLong()).isZero(); // checksum, as Dynamo's release builds write it
      assertThat(post.body().length()).isEqualTo(24 + headerLength + bodyLength);
      JsonNode control = JSON.readTree(post.body().getBytes(), 24, headerLength);
      assertThat(control.path("id").asText()).isEqualTo("router-1");
      assertThat(control.path("request_type").asText()).isEqualTo("single_in");
      assertThat(control.path("response_type").asText()).isEqualTo("many_out");
      assertThat(control.path("connection_info").path("transport").asText())
          .isEqualTo("tcp_server");
      JsonNode info = JSON.readTree(control.path("connection_info").path("info").asText());
      // told to call back on the address the POST left from
      assertThat(info.path("address").asText()).startsWith(post.headers().get(":peer") + ":");
      assertThat(info.path("context").asText()).isEqualTo("router-1");
      assertThat(post.body().getBuffer(24 + headerLength, post.body().length()))
          .isEqualTo(Payloads.request(TcpEndToEndTest.request(7), PayloadCodec.JSON));

      // a probe: an empty POST to the same URL
      Await.result(plane.probe(worker));
      Seen probe = seen.poll(20, TimeUnit.SECONDS);
      assertThat(probe.body().length()).isZero();
      assertThat(probe.path()).isEqualTo("/v1/rpc/generate");
    } finally {
      Await.result(server.close());
    }
  }

  @ParameterizedTest(name = "prior knowledge {0}")
  @ValueSource(booleans = {false, true})
  void aBodyOverTheWorkersLimit_isTheClientsRequest_andTheNextRequestIsServed(
      boolean priorKnowledge) throws Exception {
    HttpRpcServer server = generateWorker(2, 4096);
    RequestPlane plane = plane(priorKnowledge);
    WorkerEndpoint worker = endpoint("w1", server.urlsByEndpoint().get("generate"));

    // about 7 kB, then about 8 MB: far more than the socket buffers hold while the worker answers
    for (int i = 0; i < 4; i++) {
      assertThat(
              Await.failure(plane.send(worker, "big-" + i, longPrompt(i < 2 ? 1000 : 1_200_000))))
          .isInstanceOf(InvalidRequestException.class)
          .hasMessageContaining("it answered HTTP 413");
      assertThat(Collector.tokens(collect(Await.result(plane.send(worker, "r" + i, req(3))))))
          .containsExactly(ScriptedEngine.expectedTokens(3, 2));
    }
  }

  @ParameterizedTest(name = "HTTP/2 {0}")
  @ValueSource(booleans = {false, true})
  void aChunkedBodyOverTheLimit_gets413_andTheConnectionServesOn(boolean http2) throws Exception {
    HttpRpcServer server = generateWorker(1, 4096);
    HttpClientOptions options = new HttpClientOptions();
    if (http2) {
      options.setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false);
    }
    HttpClient client =
        vertx
            .httpClientBuilder()
            .with(options)
            .with(new PoolOptions().setHttp1MaxSize(1).setHttp2MaxSize(1))
            .build();
    try {
      RequestOptions post =
          new RequestOptions()
              .setMethod(HttpMethod.POST)
              .setAbsoluteURI(server.urlsByEndpoint().get("generate"));
      List<io.vertx.core.http.HttpConnection> connections = new ArrayList<>();
      int status =
          Await.result(
              client
                  .request(post)
                  .compose(
                      request -> {
                        connections.add(request.connection());
                        request.setChunked(true); // no length: the body comes in pieces
                        for (int i = 0; i < 4; i++) {
                          request.write(Buffer.buffer(new byte[1500]));
                        }
                        return request
                            .end()
                            .compose(v -> request.response())
                            .compose(r -> r.body().map(b -> r.statusCode()));
                      }));
      assertThat(status).isEqualTo(413);
      // an empty POST (a probe) answered afterwards, over the same connection
      int next =
          Await.result(
              client
                  .request(post)
                  .compose(
                      request -> {
                        connections.add(request.connection());
                        return request.send().compose(r -> r.body().map(b -> r.statusCode()));
                      }));
      assertThat(next).isEqualTo(202);
      assertThat(connections.get(1)).isSameAs(connections.get(0));
      // another method on an endpoint
      int get =
          Await.result(
              client
                  .request(new RequestOptions(post).setMethod(HttpMethod.GET))
                  .compose(
                      request -> request.send().compose(r -> r.body().map(b -> r.statusCode()))));
      assertThat(get).isEqualTo(405);
    } finally {
      Await.result(client.close());
    }
  }

  @Test
  void anEnvelopeOverTheRoutersLimit_isRefusedBeforeAnyConnection() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    WorkerEndpoint nobody = endpoint("w1", "http://127.0.0.1:" + port + "/v1/rpc/generate");
    RequestPlane plane = plane(true, TcpConfig.defaults("127.0.0.1", 4096), Duration.ofSeconds(5));
    assertThat(Await.failure(plane.send(nobody, "big", longPrompt(1000))))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("exceeds the limit of 4096 bytes");

    // a configured call-home host counts as it is: this prompt fits the 4096 bytes with a short
    // host, not with 2,000 characters of it
    TcpConfig advertised =
        new TcpConfig(
            4096,
            Duration.ofSeconds(5),
            4,
            Duration.ofSeconds(5),
            "127.0.0.1",
            0,
            "h".repeat(2000));
    RequestPlane longHost = plane(true, advertised, Duration.ofSeconds(5));
    assertThat(Await.failure(longHost.send(nobody, "near", longPrompt(300))))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("exceeds the limit of 4096 bytes");
    assertThat(Await.failure(plane.send(nobody, "near", longPrompt(300))))
        .as("the same prompt with the host the POST leaves from")
        .isInstanceOf(WorkerUnavailableException.class);
  }

  @Test
  void manyEnvelopesOverTheRoutersLimit_takeNoStream() throws Exception {
    HttpRpcServer server = generateWorker(2, MAX);
    // 2 bytes a token pass the first check, 7 do not fit
    RequestPlane plane = plane(true, TcpConfig.defaults("127.0.0.1", 4096), Duration.ofSeconds(5));
    WorkerEndpoint worker = endpoint("w1", server.urlsByEndpoint().get("generate"));

    // more than the HTTP/2 streams a connection allows at once (100)
    for (int i = 0; i < 150; i++) {
      assertThat(Await.failure(plane.send(worker, "big-" + i, longPrompt(1000))))
          .isInstanceOf(InvalidRequestException.class)
          .hasMessageContaining("exceeds the limit of 4096 bytes");
    }
    assertThat(Collector.tokens(collect(Await.result(plane.send(worker, "r", req(4))))))
        .containsExactly(ScriptedEngine.expectedTokens(4, 2));
    Await.result(plane.probe(worker));
  }

  @Test
  void aWorkerThatNeverAnswers_isUnreachableAfterTheRequestTimeout() throws Exception {
    NetServer silent =
        Await.result(vertx.createNetServer().connectHandler(socket -> {}).listen(0, "127.0.0.1"));
    try {
      RequestPlane plane = plane(false, TcpEndToEndTest.config(4), Duration.ofMillis(300));
      WorkerEndpoint worker =
          endpoint("w1", "http://127.0.0.1:" + silent.actualPort() + "/v1/rpc/generate");

      Throwable failure = Await.failure(plane.send(worker, "r1", req(1)));
      assertThat(failure)
          .isInstanceOf(WorkerUnavailableException.class)
          .hasMessageContaining("no answer from http://127.0.0.1:")
          .hasMessageContaining("within 300 ms");
      assertThat(((WorkerUnavailableException) failure).workerFault()).isTrue();
      assertThat(Await.failure(plane.probe(worker)))
          .isInstanceOf(WorkerUnavailableException.class)
          .hasMessageContaining("within 300 ms");
    } finally {
      Await.result(silent.close());
    }
  }

  @Test
  void anUnknownEndpoint_isRefusedWithTheWorkersWords() throws Exception {
    HttpRpcServer server =
        worker(
            Map.of("generate", new ScriptedEngine(vertx, 1, 0, ScriptedEngine.Failure.NONE)),
            Map.of());
    WorkerEndpoint unknown = endpoint("w1", "http://127.0.0.1:" + server.port() + "/v1/rpc/nope");
    RequestPlane plane = plane(false);

    Throwable failure = Await.failure(plane.send(unknown, "r1", TcpEndToEndTest.request(1)));
    assertThat(failure)
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("HTTP request failed with status 404: Endpoint not found");
    assertThat(Await.failure(plane.probe(unknown))).isInstanceOf(WorkerUnavailableException.class);
  }

  @Test
  void aWorkerThatIsNotThere_isUnreachable() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    WorkerEndpoint dead = endpoint("dead", "http://127.0.0.1:" + port + "/v1/rpc/generate");
    RequestPlane plane = plane(true);

    assertThat(Await.failure(plane.send(dead, "r1", TcpEndToEndTest.request(1))))
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("cannot post to http://127.0.0.1:" + port);
    assertThat(Await.failure(plane.probe(dead))).isInstanceOf(WorkerUnavailableException.class);
  }

  @Test
  void aRouterNotOnTheHttpPlane_saysHowToReachHttpWorkers() throws Exception {
    RequestPlane plane = TcpTransport.client(vertx, TcpEndToEndTest.config(4));
    planes.add(plane);
    WorkerEndpoint worker = endpoint("w1", "http://127.0.0.1:1/v1/rpc/generate");

    assertThat(Await.failure(plane.send(worker, "r1", TcpEndToEndTest.request(1))))
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("--request-plane http");
    assertThat(Await.failure(plane.probe(worker)))
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("--request-plane http");
  }
}
