package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvrouter.discovery.kube.KubeDiscoveryWatcher;
import io.kvrouter.discovery.kube.PodIds;
import io.kvrouter.testing.Http;
import io.kvrouter.testing.WorkerProcess;
import io.vertx.core.json.JsonArray;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A router started with {@code --discovery-backend kubernetes} against fabric8's mock API server
 * (CRUD mode), in front of {@code router.jar worker --discovery-backend kubernetes} processes that
 * applied their own {@code DynamoWorkerMetadata}: a worker counts while its pod is ready in a
 * labelled EndpointSlice, as Dynamo's discovery has it.
 */
class KubeDiscoveredRouterIT {
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final String NS = "dynamo-ns";

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

  private WorkerProcess worker(String model, String pod) throws Exception {
    WorkerProcess worker =
        WorkerProcess.start(
            model,
            5,
            1,
            List.of(
                "--port",
                "0",
                "--discovery-backend",
                "kubernetes",
                "--pod-name",
                pod,
                "--pod-uid",
                "uid-" + pod,
                "--kube-namespace",
                NS,
                "--kv-events-format",
                "dynamo",
                "--kv-events-port",
                "0"),
            api.environment());
    closers.add(0, worker);
    return worker;
  }

  private RouterFixture router() throws Exception {
    Map<String, List<String>> flags = new HashMap<>();
    flags.put("discovery-backend", List.of("kubernetes"));
    flags.put("kube-namespace", List.of(NS));
    flags.put("router-mode", List.of("kv"));
    RouterFixture router = RouterFixture.start(flags);
    closers.add(0, router);
    return router;
  }

  /** The workers' Service's EndpointSlice, with {@code ready} of {@code pods} ready. */
  private void slice(List<String> pods, List<String> ready) {
    Map<String, String> labels = new LinkedHashMap<>(KubeDiscoveryWatcher.SLICE_LABELS);
    labels.put("kubernetes.io/service-name", "workers");
    List<io.fabric8.kubernetes.api.model.discovery.v1.Endpoint> endpoints = new ArrayList<>();
    for (String pod : pods) {
      endpoints.add(
          new EndpointBuilder()
              .withAddresses("127.0.0.1")
              .withNewConditions()
              .withReady(ready.contains(pod))
              .endConditions()
              .withTargetRef(
                  new ObjectReferenceBuilder()
                      .withKind("Pod")
                      .withNamespace(NS)
                      .withName(pod)
                      .withUid("uid-" + pod)
                      .build())
              .build());
    }
    EndpointSlice slice =
        new EndpointSliceBuilder()
            .withNewMetadata()
            .withName("workers-abcde")
            .withNamespace(NS)
            .withLabels(labels)
            .endMetadata()
            .withAddressType("IPv4")
            .withEndpoints(endpoints)
            .build();
    client
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace(NS)
        .resource(slice)
        .createOr(existing -> existing.update());
  }

  private static List<String> models(RouterFixture router) throws Exception {
    JsonArray data = Http.get(router.baseUrl + "/v1/models").json().getJsonArray("data");
    List<String> names = new ArrayList<>();
    for (int i = 0; i < data.size(); i++) {
      names.add(data.getJsonObject(i).getString("id"));
    }
    return names;
  }

  private static int chat(RouterFixture router, String model) throws Exception {
    return Http.post(
            router.baseUrl + "/v1/chat/completions",
            "{\"model\":\""
                + model
                + "\",\"max_tokens\":3,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
        .status();
  }

  @Test
  void workersThatAppliedTheirMetadata_serveTheirModels_whileTheirPodsAreReady() throws Exception {
    WorkerProcess a = worker("model-a", "worker-a");
    WorkerProcess b = worker("model-b", "worker-b");
    for (String pod : List.of("worker-a", "worker-b")) {
      await()
          .atMost(PATIENCE)
          .until(
              () ->
                  client
                          .genericKubernetesResources(KubeDiscoveryWatcher.WORKER_METADATA)
                          .inNamespace(NS)
                          .withName(pod)
                          .get()
                      != null);
    }
    GenericKubernetesResource metadata =
        client
            .genericKubernetesResources(KubeDiscoveryWatcher.WORKER_METADATA)
            .inNamespace(NS)
            .withName("worker-a")
            .get();
    assertThat(metadata.getMetadata().getOwnerReferences().get(0).getUid())
        .isEqualTo("uid-worker-a");
    String hex = Long.toHexString(PodIds.instanceId("worker-a"));
    assertThat(a.recentOutput(200)).contains("registered in Kubernetes as instance " + hex);

    slice(List.of("worker-a", "worker-b"), List.of("worker-a", "worker-b"));
    RouterFixture router = router();
    await().atMost(PATIENCE).until(() -> models(router).equals(List.of("model-a", "model-b")));
    assertThat(chat(router, "model-a")).isEqualTo(200);
    assertThat(chat(router, "model-b")).isEqualTo(200);

    // pod not ready: its worker is out, and with it its model
    slice(List.of("worker-a", "worker-b"), List.of("worker-a"));
    await().atMost(PATIENCE).until(() -> models(router).equals(List.of("model-a")));
    assertThat(chat(router, "model-b")).isEqualTo(404);
    slice(List.of("worker-a", "worker-b"), List.of("worker-a", "worker-b"));
    await().atMost(PATIENCE).until(() -> models(router).equals(List.of("model-a", "model-b")));
    assertThat(chat(router, "model-b")).isEqualTo(200);

    // a worker that stops withdraws its metadata: the router drops it though its pod looks ready
    assertThat(b.terminate()).isZero();
    await().atMost(PATIENCE).until(() -> models(router).equals(List.of("model-a")));
    assertThat(chat(router, "model-a")).isEqualTo(200);
  }
}
