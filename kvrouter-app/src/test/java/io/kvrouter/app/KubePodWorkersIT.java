package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvrouter.testing.Http;
import io.kvrouter.testing.WorkerProcess;
import io.vertx.core.json.JsonArray;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A router started with {@code --discovery-backend kubernetes --worker-selector app=vllm} against
 * fabric8's mock API server (CRUD mode): plain engines ({@code router.jar worker --api openai}
 * processes on two loopback addresses, one port) are workers while their pods are ready, as llm-d
 * and vLLM's production stack find theirs.
 */
class KubePodWorkersIT {
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final String NS = "engines";

  private MockKubeApi api;
  private KubernetesClient client;
  private final List<AutoCloseable> closers = new ArrayList<>();

  @BeforeEach
  void startServer() {
    api = new MockKubeApi(NS);
    client = api.client;
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable closer : closers) {
      closer.close();
    }
    api.close();
  }

  private WorkerProcess engine(String ip, int port) throws Exception {
    WorkerProcess worker =
        WorkerProcess.start(
            "m", 5, 1, List.of("--api", "openai", "--host", ip, "--port", String.valueOf(port)));
    closers.add(0, worker);
    return worker;
  }

  private static Pod pod(String name, String ip, boolean ready, Map<String, String> labels) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NS)
        .withLabels(labels)
        .endMetadata()
        .withNewStatus()
        .withPodIP(ip)
        .addNewCondition()
        .withType("Ready")
        .withStatus(ready ? "True" : "False")
        .endCondition()
        .endStatus()
        .build();
  }

  private void put(Pod pod) {
    client.pods().inNamespace(NS).resource(pod).createOr(existing -> existing.update());
  }

  private static List<String> workers(RouterFixture router) throws Exception {
    JsonArray all = Http.get(router.baseUrl + "/router/workers").json().getJsonArray("workers");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      ids.add(all.getJsonObject(i).getString("worker_id"));
    }
    return ids;
  }

  @Test
  void readyPodsOfTheSelector_areWorkers_andLeaveWhenNotReadyOrDeleted() throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      port = probe.getLocalPort();
    }
    engine("127.0.0.1", port);
    engine("127.0.0.2", port);
    Map<String, String> vllm = Map.of("app", "vllm");
    put(pod("vllm-a", "127.0.0.1", true, vllm));
    put(pod("vllm-b", "127.0.0.2", false, vllm));
    put(pod("other", "127.0.0.3", true, Map.of("app", "web")));

    Map<String, List<String>> flags = new HashMap<>();
    flags.put("discovery-backend", List.of("kubernetes"));
    flags.put("kube-namespace", List.of(NS));
    flags.put("worker-selector", List.of("app=vllm"));
    flags.put("worker-port", List.of(String.valueOf(port)));
    flags.put("router-mode", List.of("round-robin"));
    flags.put("served-model-name", List.of("m"));
    RouterFixture router = RouterFixture.start(flags);
    closers.add(0, router);

    await().atMost(PATIENCE).until(() -> workers(router).equals(List.of("vllm-a")));
    String chat =
        "{\"model\":\"m\",\"max_tokens\":3,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    assertThat(Http.post(router.baseUrl + "/v1/chat/completions", chat).status()).isEqualTo(200);

    put(pod("vllm-b", "127.0.0.2", true, vllm)); // turns ready
    await().atMost(PATIENCE).until(() -> workers(router).size() == 2);
    for (int i = 0; i < 4; i++) {
      assertThat(Http.post(router.baseUrl + "/v1/chat/completions", chat).status()).isEqualTo(200);
    }

    put(pod("vllm-a", "127.0.0.1", false, vllm)); // not ready: out at once
    await().atMost(PATIENCE).until(() -> workers(router).equals(List.of("vllm-b")));
    client.pods().inNamespace(NS).withName("vllm-b").delete();
    await().atMost(PATIENCE).until(() -> workers(router).isEmpty());
    assertThat(Http.post(router.baseUrl + "/v1/chat/completions", chat).status()).isEqualTo(503);
  }
}
