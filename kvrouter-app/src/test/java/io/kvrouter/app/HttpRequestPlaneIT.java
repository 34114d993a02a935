package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.openai.client.OpenAIClient;
import com.openai.models.chat.completions.ChatCompletion;
import io.kvrouter.testing.EtcdProcess;
import io.kvrouter.testing.Http;
import io.kvrouter.testing.WorkerProcess;
import io.vertx.core.json.JsonArray;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Dynamo's HTTP request plane end to end: a router with {@code --request-plane http} and etcd
 * discovery in front of two worker processes that registered themselves in a real etcd, one on the
 * HTTP plane (advertising {@code {"http":URL}}) and one on TCP, served in one router with the
 * OpenAI Java client; then the HTTP worker is killed and the TCP one serves on.
 */
class HttpRequestPlaneIT {
  private static final String MODEL = "mock-model";
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final Pattern HTTP_PLANE =
      Pattern.compile("HTTP request plane: generate on (http://\\S+)");

  private EtcdProcess etcd;
  private final List<AutoCloseable> closers = new ArrayList<>();

  @BeforeEach
  void startEtcd() throws Exception {
    etcd = EtcdProcess.start();
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable closer : closers) {
      closer.close();
    }
    etcd.close();
  }

  private WorkerProcess worker(String... options) throws Exception {
    List<String> all =
        new ArrayList<>(
            List.of("--port", "0", "--discovery-backend", "etcd", "--etcd-endpoints", etcd.url()));
    all.addAll(List.of(options));
    WorkerProcess worker = WorkerProcess.start(MODEL, 2, 1, all);
    closers.add(0, worker);
    return worker;
  }

  private static double served(WorkerProcess worker) throws Exception {
    return worker.metric("dynamo_component_requests_total");
  }

  @ParameterizedTest(name = "prior knowledge {0}")
  @ValueSource(booleans = {false, true})
  void httpAndTcpWorkers_serveChatAndCompletions_andTheTcpOneServesOnWhenTheHttpOneDies(
      boolean priorKnowledge) throws Exception {
    WorkerProcess overHttp =
        worker(
            "--request-plane",
            "http",
            "--http-rpc-host",
            "127.0.0.1",
            "--http-rpc-port",
            "0",
            "--http-rpc-root-path",
            "/v1/rpc");
    WorkerProcess overTcp = worker();
    await().atMost(PATIENCE).until(() -> HTTP_PLANE.matcher(overHttp.recentOutput(200)).find());
    Matcher advertised = HTTP_PLANE.matcher(overHttp.recentOutput(200));
    assertThat(advertised.find()).isTrue();
    assertThat(advertised.group(1)).matches("http://127\\.0\\.0\\.1:\\d+/v1/rpc/generate");

    Map<String, List<String>> flags = new HashMap<>();
    flags.put("discovery-backend", List.of("etcd"));
    flags.put("etcd-endpoints", List.of(etcd.url()));
    flags.put("router-mode", List.of("round-robin"));
    flags.put("request-plane", List.of("http"));
    flags.put("http-rpc-prior-knowledge", List.of(String.valueOf(priorKnowledge)));
    RouterFixture router = RouterFixture.start(flags);
    closers.add(0, router);
    await()
        .atMost(PATIENCE)
        .until(
            () -> {
              JsonArray workers =
                  Http.get(router.baseUrl + "/router/workers").json().getJsonArray("workers");
              return workers.size() == 2;
            });

    OpenAIClient client = OpenAiRounds.client(router);
    double httpBefore = served(overHttp);
    double tcpBefore = served(overTcp);
    // round robin: each worker gets two of every four requests
    for (int round = 0; round < 2; round++) {
      OpenAiRounds.chatAndCompletions(client, MODEL);
    }
    assertThat(served(overHttp) - httpBefore).isEqualTo(4);
    assertThat(served(overTcp) - tcpBefore).isEqualTo(4);

    // SIGKILL: until its lease runs out the router still lists it, finds it unreachable, and
    // sends its requests to the TCP worker
    overHttp.kill();
    for (int i = 0; i < 6; i++) {
      ChatCompletion unary = client.chat().completions().create(OpenAiRounds.chat(MODEL, 5));
      assertThat(unary.choices().get(0).message().content().orElseThrow()).hasSize(5);
    }
    assertThat(served(overTcp) - tcpBefore).isEqualTo(10);
  }
}
