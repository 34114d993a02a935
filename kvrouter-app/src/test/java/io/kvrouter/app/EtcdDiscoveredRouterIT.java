package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvrouter.config.EtcdConfig;
import io.kvrouter.discovery.CardFile;
import io.kvrouter.discovery.ModelCard;
import io.kvrouter.discovery.ModelCardRecord;
import io.kvrouter.discovery.RuntimeConfig;
import io.kvrouter.discovery.etcd.EtcdRegistrar;
import io.kvrouter.preprocess.TestModels;
import io.kvrouter.testing.EtcdProcess;
import io.kvrouter.testing.Http;
import io.kvrouter.testing.NatsServerProcess;
import io.kvrouter.testing.WorkerProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A router started with {@code --discovery-backend etcd} and no {@code --worker}, in front of
 * {@code router.jar worker} processes that registered themselves in a real etcd: the models on
 * their cards are served, each by its own workers, and the set follows the store (a killed worker's
 * lease runs out, an etcd restart is re-listed).
 */
class EtcdDiscoveredRouterIT {
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final Pattern REGISTERED =
      Pattern.compile("registered in etcd as instance ([0-9a-f]+):");

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

  private WorkerProcess worker(String model, String... options) throws Exception {
    List<String> all =
        new ArrayList<>(
            List.of("--port", "0", "--discovery-backend", "etcd", "--etcd-endpoints", etcd.url()));
    all.addAll(List.of(options));
    WorkerProcess worker = WorkerProcess.start(model, 5, 1, all);
    closers.add(0, worker);
    return worker;
  }

  private RouterFixture router(String... extra) throws Exception {
    Map<String, List<String>> flags = new HashMap<>();
    flags.put("discovery-backend", List.of("etcd"));
    flags.put("etcd-endpoints", List.of(etcd.url()));
    flags.put("router-mode", List.of("kv"));
    for (int i = 0; i < extra.length; i += 2) {
      flags.put(extra[i], List.of(extra[i + 1]));
    }
    RouterFixture router = RouterFixture.start(flags);
    closers.add(0, router);
    return router;
  }

  private static String instanceHex(WorkerProcess worker) {
    await().atMost(PATIENCE).until(() -> REGISTERED.matcher(worker.recentOutput(200)).find());
    Matcher m = REGISTERED.matcher(worker.recentOutput(200));
    assertThat(m.find()).isTrue();
    return m.group(1);
  }

  private static List<String> models(RouterFixture router) throws Exception {
    JsonArray data = Http.get(router.baseUrl + "/v1/models").json().getJsonArray("data");
    List<String> names = new ArrayList<>();
    for (int i = 0; i < data.size(); i++) {
      names.add(data.getJsonObject(i).getString("id"));
    }
    return names;
  }

  private static List<JsonObject> workers(RouterFixture router) throws Exception {
    JsonArray all = Http.get(router.baseUrl + "/router/workers").json().getJsonArray("workers");
    List<JsonObject> workers = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      workers.add(all.getJsonObject(i));
    }
    return workers;
  }

  private static Http.Response chat(RouterFixture router, String model) throws Exception {
    return Http.post(
        router.baseUrl + "/v1/chat/completions",
        "{\"model\":\""
            + model
            + "\",\"max_tokens\":3,\"messages\":[{\"role\":\"user\",\"content\":\"hello there\"}]}");
  }

  @Test
  void twoSelfRegisteredWorkers_serveTwoModels_andAKilledOneIsDroppedWhenItsLeaseRunsOut()
      throws Exception {
    WorkerProcess qwen =
        worker(
            "qwen",
            "--model-path",
            TestModels.dir("qwen3").toString(),
            "--kv-events-format",
            "dynamo",
            "--kv-events-port",
            "0",
            "--data-parallel-size",
            "2",
            "--num-gpu-blocks",
            "256",
            "--kv-cache-block-size",
            "16");
    WorkerProcess demo = worker("demo-b", "--kv-events-format", "dynamo", "--kv-events-port", "0");
    String qwenId = Long.toUnsignedString(Long.parseUnsignedLong(instanceHex(qwen), 16));
    String demoId = Long.toUnsignedString(Long.parseUnsignedLong(instanceHex(demo), 16));

    RouterFixture router = router();
    assertThat(models(router)).containsExactly("demo-b", "qwen");

    Http.Response answer = chat(router, "qwen");
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    assertThat(chat(router, "demo-b").status()).isEqualTo(200);
    assertThat(chat(router, "no-such-model").status()).isEqualTo(404);

    List<JsonObject> workers = workers(router);
    assertThat(workers)
        .extracting(w -> w.getString("model") + " " + w.getString("worker_id"))
        .containsExactlyInAnyOrder("qwen " + qwenId, "demo-b " + demoId);
    JsonObject qwenRank =
        workers.stream().filter(w -> w.getString("model").equals("qwen")).findFirst().orElseThrow();
    assertThat(qwenRank.getLong("total_kv_blocks"))
        .as("two ranks of the card's 256")
        .isEqualTo(512);
    // the worker's ZMQ publisher, found as its event channel, feeds the model's index
    for (int i = 0; i < 6; i++) {
      assertThat(
              Http.post(
                      router.baseUrl + "/v1/completions",
                      "{\"model\":\"qwen\",\"max_tokens\":2,\"prompt\":\"request number "
                          + i
                          + " with a prompt long enough to fill a few KV blocks of sixteen tokens"
                          + " each, so that the worker stores blocks and publishes them\"}")
                  .status())
          .isEqualTo(200);
    }
    await()
        .atMost(PATIENCE)
        .alias("the qwen worker's KV events reach the index")
        .until(
            () ->
                workers(router).stream()
                    .filter(w -> w.getString("model").equals("qwen"))
                    .allMatch(
                        w ->
                            w.getInteger("cached_blocks") > 0
                                && w.getJsonObject("kv_events")
                                    .getString("state")
                                    .equals("following")));

    // each model's router counts its own index's events, as a series of its own
    String metrics = Http.get(router.baseUrl + "/metrics").body();
    assertThat(metrics)
        .containsPattern("kv_cache_events_applied_total\\{[^}]*model=\"qwen\"")
        .containsPattern("kv_cache_events_applied_total\\{[^}]*model=\"demo-b\"");

    demo.kill(); // SIGKILL: its keys go when its lease runs out (10 s)
    long killed = System.nanoTime();
    await().atMost(PATIENCE).until(() -> !models(router).contains("demo-b"));
    long droppedMillis = (System.nanoTime() - killed) / 1_000_000;
    System.out.println(
        "a killed worker's model was dropped " + droppedMillis + " ms after SIGKILL");
    assertThat(chat(router, "demo-b").status()).isEqualTo(404);
    assertThat(workers(router)).extracting(w -> w.getString("model")).containsOnly("qwen");
    await() // the model is no longer served, then its parts close
        .atMost(PATIENCE)
        .alias("a removed model's router meters go with it")
        .until(
            () ->
                !Http.get(router.baseUrl + "/metrics")
                    .body()
                    .contains(
                        "kv_cache_events_applied_total{event_type=\"cleared\",model=\"demo-b\""));
    assertThat(chat(router, "qwen").status()).isEqualTo(200);

    // a worker that registers while the router runs joins without a restart
    WorkerProcess second =
        worker(
            "qwen",
            "--model-path",
            TestModels.dir("qwen3").toString(),
            "--kv-events-format",
            "dynamo",
            "--kv-events-port",
            "0",
            "--data-parallel-size",
            "2",
            "--num-gpu-blocks",
            "256",
            "--kv-cache-block-size",
            "16");
    String secondId = Long.toUnsignedString(Long.parseUnsignedLong(instanceHex(second), 16));
    await()
        .atMost(PATIENCE)
        .until(
            () ->
                workers(router).stream().anyMatch(w -> w.getString("worker_id").equals(secondId)));
  }

  @Test
  void anEtcdRestartUnderLoad_losesNoRequest_andAStoreThatLostItsDataIsFilledAgain()
      throws Exception {
    WorkerProcess a = worker("model-a");
    WorkerProcess b = worker("model-b");
    instanceHex(a);
    instanceHex(b);
    RouterFixture router = router();
    assertThat(models(router)).containsExactly("model-a", "model-b");

    AtomicBoolean running = new AtomicBoolean(true);
    AtomicInteger served = new AtomicInteger();
    List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    Thread load =
        new Thread(
            () -> {
              int i = 0;
              while (running.get()) {
                String model = (i++ % 2 == 0) ? "model-a" : "model-b";
                try {
                  Http.Response r = chat(router, model);
                  if (r.status() == 200) {
                    served.incrementAndGet();
                  } else {
                    failures.add(model + ": " + r.status() + " " + r.body());
                  }
                } catch (Exception e) {
                  failures.add(model + ": " + e);
                }
              }
            });
    load.start();
    try {
      await().atMost(PATIENCE).until(() -> served.get() >= 20);
      etcd.restart(); // SIGKILL, then the same data on the same ports
      int before = served.get();
      await().atMost(PATIENCE).until(() -> served.get() >= before + 50);
    } finally {
      running.set(false);
      load.join();
    }
    assertThat(failures).as("requests while etcd restarted").isEmpty();
    assertThat(models(router)).containsExactly("model-a", "model-b");
    assertThat(workers(router)).hasSize(2);

    // an etcd that lost every key and lease: the router sees the store empty and serves nothing,
    // then the workers register again (same ids, new leases) and it serves them again
    etcd.restartEmpty();
    // "registered again under lease" is logged once the worker's keys are back in the store; the
    // router may still show its view from before the loss, or have emptied it and not yet seen
    // the keys return, so what it serves is awaited, not read once
    for (WorkerProcess worker : List.of(a, b)) {
      await()
          .atMost(PATIENCE)
          .until(() -> worker.recentOutput(200).contains("registered again under lease"));
    }
    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () -> {
              assertThat(models(router)).containsExactly("model-a", "model-b");
              assertThat(workers(router)).hasSize(2);
              assertThat(chat(router, "model-a").status()).isEqualTo(200);
              assertThat(chat(router, "model-b").status()).isEqualTo(200);
            });
  }

  @Test
  void aCardWhoseFilesCannotBeLoaded_isListedUnavailableWithTheReason(@TempDir Path dir)
      throws Exception {
    Path tokenizer = dir.resolve("tokenizer.json");
    Files.copy(TestModels.dir("qwen3").resolve("tokenizer.json"), tokenizer);
    CardFile file = CardFile.of("hf_tokenizer_json", tokenizer);
    ModelCard card =
        ModelCard.forWorker(
            "broken",
            Optional.empty(),
            4096,
            16,
            new RuntimeConfig(
                OptionalInt.empty(),
                OptionalLong.of(64),
                OptionalLong.empty(),
                OptionalLong.empty(),
                0,
                1,
                false),
            Map.of("tokenizer", file));
    Files.writeString(tokenizer, "{}"); // the file no longer is the one the card describes
    try (EtcdRegistrar registrar = EtcdRegistrar.start(EtcdConfig.of(List.of(etcd.uri())))) {
      registrar.register(
          new ModelCardRecord(
              "dynamo", "backend", "generate", registrar.instanceId(), card, Optional.empty()));
      RouterFixture router = router();
      JsonObject listing = Http.get(router.baseUrl + "/router/workers").json();
      JsonArray unavailable = listing.getJsonArray("unavailable_models");
      assertThat(unavailable).hasSize(1);
      assertThat(unavailable.getJsonObject(0).getString("model")).isEqualTo("broken");
      assertThat(unavailable.getJsonObject(0).getString("reason"))
          .contains(tokenizer.toString())
          .contains("the model card says");
      Http.Response answer = chat(router, "broken");
      assertThat(answer.status()).isEqualTo(503);
      // the reason names the tokenizer's path: only /router/workers tells it, not the client
      assertThat(answer.body())
          .contains("No worker can serve this request now")
          .doesNotContain(tokenizer.toString())
          .doesNotContain("the model card says");
      assertThat(models(router)).isEmpty();

      // a worker with the right file registers the model too; once the broken card is gone, the
      // model is built again from the good one
      Path good = dir.resolve("good");
      Files.createDirectories(good);
      Files.copy(TestModels.dir("qwen3").resolve("tokenizer.json"), good.resolve("tokenizer.json"));
      ModelCard fixed =
          ModelCard.forWorker(
              "broken",
              Optional.empty(),
              4096,
              16,
              card.runtimeConfig(),
              Map.of(
                  "tokenizer", CardFile.of("hf_tokenizer_json", good.resolve("tokenizer.json"))));
      try (EtcdRegistrar second = EtcdRegistrar.start(EtcdConfig.of(List.of(etcd.uri())))) {
        second.register(
            new ModelCardRecord(
                "dynamo", "backend", "generate", second.instanceId(), fixed, Optional.empty()));
        registrar.close(); // the broken card's lease is revoked
        await().atMost(PATIENCE).until(() -> models(router).equals(List.of("broken")));
        assertThat(
                Http.get(router.baseUrl + "/router/workers")
                    .json()
                    .getJsonArray("unavailable_models"))
            .isEmpty();
      }
    }
  }

  @Test
  void aCardWhoseFilesAreInTheNatsObjectStore_isServedWithThem() throws Exception {
    Path qwen = TestModels.dir("qwen3");
    try (NatsServerProcess nats = NatsServerProcess.startWithJetStream();
        io.nats.client.Connection connection = io.nats.client.Nats.connect(nats.url())) {
      String bucket = "qwen_8ee6210e";
      connection
          .objectStoreManagement()
          .create(
              io.nats.client.api.ObjectStoreConfiguration.builder(bucket)
                  .storageType(io.nats.client.api.StorageType.Memory)
                  .build());
      Map<String, CardFile> files = new HashMap<>();
      String[][] kinds = {
        {"tokenizer", "hf_tokenizer_json", "tokenizer.json"},
        {"prompt_formatter", "hf_tokenizer_config_json", "tokenizer_config.json"}
      };
      for (String[] kind : kinds) {
        Path local = qwen.resolve(kind[2]);
        try (var in = Files.newInputStream(local)) {
          connection.objectStore(bucket).put(kind[2], in);
        }
        CardFile checked = CardFile.of(kind[1], local);
        files.put(
            kind[0],
            new CardFile(
                kind[1],
                "nats://127.0.0.1:" + nats.port() + "/" + bucket + "/" + kind[2],
                checked.checksum(),
                checked.size(),
                false));
      }
      ModelCard card =
          ModelCard.forWorker(
              "qwen-from-nats",
              Optional.empty(),
              4096,
              16,
              new RuntimeConfig(
                  OptionalInt.empty(),
                  OptionalLong.of(64),
                  OptionalLong.empty(),
                  OptionalLong.empty(),
                  0,
                  1,
                  false),
              files);
      try (EtcdRegistrar registrar = EtcdRegistrar.start(EtcdConfig.of(List.of(etcd.uri())))) {
        registrar.register(
            new ModelCardRecord(
                "dynamo", "backend", "generate", registrar.instanceId(), card, Optional.empty()));
        RouterFixture router = router();
        assertThat(models(router)).containsExactly("qwen-from-nats");
        assertThat(
                Http.get(router.baseUrl + "/router/workers")
                    .json()
                    .getJsonArray("unavailable_models"))
            .isEmpty();
        // served, with no worker yet: the model's files loaded, its requests wait for a worker
        assertThat(chat(router, "qwen-from-nats").status()).isEqualTo(503);
      }
    }
  }

  @Test
  void aDiscoveredWorkerKilledMidStream_hasItsRequestMigratedToAnotherOfTheModel()
      throws Exception {
    List<WorkerProcess> workers = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      WorkerProcess worker =
          WorkerProcess.start(
              "model-m",
              5,
              40,
              List.of(
                  "--port", "0", "--discovery-backend", "etcd", "--etcd-endpoints", etcd.url()));
      closers.add(0, worker);
      instanceHex(worker);
      workers.add(worker);
    }
    RouterFixture router = router("migration-limit", "3");
    await().atMost(PATIENCE).until(() -> workers(router).size() == 2);

    java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
    java.net.http.HttpResponse<java.util.stream.Stream<String>> response =
        client.send(
            java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(router.baseUrl + "/v1/chat/completions"))
                .header("content-type", "application/json")
                .POST(
                    java.net.http.HttpRequest.BodyPublishers.ofString(
                        "{\"model\":\"model-m\",\"stream\":true,\"max_tokens\":80,"
                            + "\"ignore_eos\":true,"
                            + "\"messages\":[{\"role\":\"user\",\"content\":\"count\"}]}"))
                .build(),
            java.net.http.HttpResponse.BodyHandlers.ofLines());
    assertThat(response.statusCode()).isEqualTo(200);
    List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());
    Thread reader = new Thread(() -> response.body().forEach(lines::add));
    reader.start();
    // tokens are streaming: the worker serving it is killed mid-stream
    await()
        .atMost(PATIENCE)
        .until(() -> lines.stream().filter(l -> l.startsWith("data: {")).count() >= 5);
    String busy =
        workers(router).stream()
            .filter(w -> w.getInteger("active_requests") == 1)
            .findFirst()
            .orElseThrow()
            .getString("worker_id");
    WorkerProcess serving =
        workers.stream()
            .filter(
                w -> Long.toUnsignedString(Long.parseUnsignedLong(instanceHex(w), 16)).equals(busy))
            .findFirst()
            .orElseThrow();
    serving.kill(); // its keys are still in etcd for up to 10 s
    reader.join(90_000);
    assertThat(reader.isAlive()).isFalse();
    assertThat(lines).contains("data: [DONE]");
    assertThat(String.join("\n", lines)).doesNotContain("\"error\"");
    assertThat(Http.get(router.baseUrl + "/metrics").body())
        .containsPattern(
            "dynamo_frontend_model_migration_total\\{[^}]*model=\"model-m\"[^}]*\\} 1.0");
  }
}
