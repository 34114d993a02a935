package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionCreateParams;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.testing.Http;
import io.kvrouter.testing.Prometheus;
import io.kvrouter.testing.WorkerProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tenant cache isolation end to end, against real worker processes that cache by salted hashes and
 * publish their KV events: two tenants sending the same long prompt never share cached blocks (the
 * router predicts no overlap for the second, and the worker computes every block of it again),
 * while a tenant repeating its prompt reuses all of it. The tenant is named by the {@code
 * x-tenant-id} header, {@code nvext.cache_salt} and, with {@code --cache-salt-per-key}, by the API
 * key an OpenAI client sends. After each request the test waits until the router's index holds
 * exactly the blocks the worker caches, so every prediction is made on the worker's true state.
 */
class TenantCacheIsolationIT {
  private static final int BLOCK_SIZE = 16;
  private static final String OVERLAP_SUM = "kvrouter_router_overlap_blocks_sum";
  private static final String OVERLAP_COUNT = "kvrouter_router_overlap_blocks_count";

  @TempDir Path dir;

  private final List<AutoCloseable> closers = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable closer : closers) {
      closer.close();
    }
  }

  private WorkerProcess worker(String model, String... options) throws Exception {
    List<String> all =
        new ArrayList<>(List.of("--block-size", String.valueOf(BLOCK_SIZE), "--port", "0"));
    all.addAll(List.of(options));
    WorkerProcess worker = WorkerProcess.start(model, 0, 0, all);
    closers.add(0, worker);
    return worker;
  }

  private RouterFixture router(Map<String, List<String>> flags) throws Exception {
    Map<String, List<String>> all = new HashMap<>(flags);
    all.put("router-mode", List.of("kv"));
    all.put("kv-cache-block-size", List.of(String.valueOf(BLOCK_SIZE)));
    RouterFixture router = RouterFixture.start(all);
    closers.add(0, router);
    return router;
  }

  /** {@code length} random lowercase letters. */
  private static String letters(Random random, int length) {
    StringBuilder text = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      text.append((char) ('a' + random.nextInt(26)));
    }
    return text.toString();
  }

  /** What the router has predicted so far: routed requests and overlap blocks, summed. */
  private record Overlap(double requests, double blocks) {
    static Overlap of(RouterFixture router) throws Exception {
      String metrics = Http.get(router.baseUrl + "/metrics").body();
      return new Overlap(
          Prometheus.sum(metrics, OVERLAP_COUNT), Prometheus.sum(metrics, OVERLAP_SUM));
    }

    /** The overlap predicted for the one request routed since {@code before}. */
    double since(Overlap before) {
      assertThat(requests - before.requests).as("requests routed").isEqualTo(1);
      return blocks - before.blocks;
    }
  }

  /** The engine hashes of the blocks the worker caches, from its {@code /kv/state}. */
  private static Set<Long> cached(WorkerProcess worker) throws Exception {
    JsonArray blocks = worker.kvState().getJsonArray("blocks");
    Set<Long> hashes = new HashSet<>();
    for (int i = 0; i < blocks.size(); i++) {
      hashes.add(Long.parseUnsignedLong(blocks.getJsonObject(i).getString("hash")));
    }
    return hashes;
  }

  /** Waits until the router's index holds exactly the blocks the worker caches. */
  private static void awaitIndexed(RouterFixture router, WorkerProcess worker, String workerId) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              Set<Long> indexed =
                  KvConvergence.routerBlocksByRank(router)
                      .getOrDefault(new WorkerRank(workerId, 0), Set.of())
                      .stream()
                      .map(KvConvergence.Block::engineHash)
                      .collect(Collectors.toSet());
              assertThat(indexed).isNotEmpty().isEqualTo(cached(worker));
            });
  }

  /**
   * Sends unsalted warm-up prompts (random letters, sharing no block with the test's prompt) until
   * the router follows the worker's events and has indexed something of it, then waits for the
   * index to hold exactly the worker's cache: a subscriber that joined after the worker's first
   * batch has nothing to catch up from until the worker publishes again.
   */
  private static void warmUp(
      RouterFixture router, WorkerProcess worker, String workerId, String model, String key) {
    Random random = new Random(99);
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              JsonObject body =
                  new JsonObject()
                      .put("model", model)
                      .put("prompt", letters(random, 40))
                      .put("max_tokens", 1);
              if (key == null) {
                complete(router, body);
              } else {
                complete(router, body, "authorization", "Bearer " + key);
              }
              JsonObject status =
                  Http.get(router.baseUrl + "/router/workers")
                      .json()
                      .getJsonArray("workers")
                      .getJsonObject(0);
              return "following".equals(status.getJsonObject("kv_events").getString("state"))
                  && !KvConvergence.routerBlocksByRank(router)
                      .getOrDefault(new WorkerRank(workerId, 0), Set.of())
                      .isEmpty();
            });
    awaitIndexed(router, worker, workerId);
  }

  /** The router's tokens hashes of what it indexed for {@code workerId}. */
  private static Set<Long> indexedTokensHashes(RouterFixture router, String workerId)
      throws Exception {
    return KvConvergence.routerBlocksByRank(router)
        .getOrDefault(new WorkerRank(workerId, 0), Set.of())
        .stream()
        .map(KvConvergence.Block::tokensHash)
        .collect(Collectors.toSet());
  }

  /**
   * The router's local hash, under {@code namespace}, of the one first block the worker caches that
   * is not among {@code known} engine hashes.
   */
  private static long newFirstBlockHash(WorkerProcess worker, Set<Long> known, String namespace)
      throws Exception {
    List<int[]> roots = new ArrayList<>();
    JsonArray blocks = worker.kvState().getJsonArray("blocks");
    for (int i = 0; i < blocks.size(); i++) {
      JsonObject block = blocks.getJsonObject(i);
      if (block.getValue("parent_hash") == null
          && !known.contains(Long.parseUnsignedLong(block.getString("hash")))) {
        JsonArray tokens = block.getJsonArray("tokens");
        int[] ids = new int[tokens.size()];
        for (int t = 0; t < ids.length; t++) {
          ids[t] = tokens.getInteger(t);
        }
        roots.add(ids);
      }
    }
    assertThat(roots).as("new first blocks").hasSize(1);
    return BlockHasher.of(BLOCK_SIZE, null, namespace).localHash(roots.get(0), 0);
  }

  /** A completions request of {@code body} with {@code headers}; its prompt's token count. */
  private static int complete(RouterFixture router, JsonObject body, String... headers)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(router.baseUrl + "/v1/completions"))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body.encode()));
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    HttpResponse<String> response =
        HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return new JsonObject(response.body()).getJsonObject("usage").getInteger("prompt_tokens");
  }

  @Test
  void dynamoWorker_tenantsByHeaderAndNvext_neverShareBlocks_aTenantReusesItsOwn()
      throws Exception {
    WorkerProcess worker =
        worker(
            KvConvergence.MODEL,
            "--kv-events-format",
            "dynamo",
            "--worker-id",
            "61",
            "--num-gpu-blocks",
            "512",
            "--kv-events-port",
            "0");
    RouterFixture router = router(RouterFixture.workers(worker.workerSpec("61")));
    warmUp(router, worker, "61", KvConvergence.MODEL, null);
    String prompt = letters(new Random(11), 200);
    JsonObject body =
        new JsonObject()
            .put("model", KvConvergence.MODEL)
            .put("prompt", prompt)
            .put("max_tokens", 1);

    // tenant A, named by the gateway header
    Set<Long> warm = cached(worker);
    Overlap before = Overlap.of(router);
    int promptTokens = complete(router, body, "x-tenant-id", "tenant-a");
    int promptBlocks = promptTokens / BLOCK_SIZE;
    assertThat(promptBlocks).isGreaterThanOrEqualTo(8);
    assertThat(Overlap.of(router).since(before)).isZero();
    awaitIndexed(router, worker, "61");
    Set<Long> afterA = cached(worker);
    // the worker published A's blocks hashed under A's namespace, and the index learned them so
    assertThat(indexedTokensHashes(router, "61"))
        .contains(newFirstBlockHash(worker, warm, "tenant-a"))
        .doesNotContain(newFirstBlockHash(worker, warm, null));

    // tenant B, the same prompt, named by nvext.cache_salt: nothing of A's is predicted or reused
    before = Overlap.of(router);
    complete(router, body.copy().put("nvext", new JsonObject().put("cache_salt", "tenant-b")));
    assertThat(Overlap.of(router).since(before)).as("B's predicted overlap").isZero();
    awaitIndexed(router, worker, "61");
    Set<Long> afterB = cached(worker);
    assertThat(afterB).containsAll(afterA);
    assertThat(afterB.size() - afterA.size())
        .as("the worker computed and cached every prompt block again for B")
        .isGreaterThanOrEqualTo(promptBlocks);

    // tenant A again, now through nvext.cache_salt: every prompt block is predicted and reused
    before = Overlap.of(router);
    complete(router, body.copy().put("nvext", new JsonObject().put("cache_salt", "tenant-a")));
    assertThat(Overlap.of(router).since(before)).as("A's repeat").isEqualTo(promptBlocks);
    awaitIndexed(router, worker, "61");
    Set<Long> afterRepeat = cached(worker);
    assertThat(afterRepeat.size() - afterB.size())
        .as("the worker reused A's prompt blocks")
        .isLessThan(promptBlocks);

    // no salt at all: a namespace of its own too
    before = Overlap.of(router);
    complete(router, body);
    assertThat(Overlap.of(router).since(before)).as("the unsalted request's overlap").isZero();
    awaitIndexed(router, worker, "61");
    assertThat(cached(worker).size() - afterRepeat.size()).isGreaterThanOrEqualTo(promptBlocks);
  }

  private static OpenAIClient client(RouterFixture router, String key) {
    return OpenAIOkHttpClient.builder()
        .baseUrl(router.baseUrl + "/v1")
        .apiKey(key)
        .maxRetries(0)
        .build();
  }

  private static Completion complete(OpenAIClient client, String prompt, String salt) {
    CompletionCreateParams.Builder params =
        CompletionCreateParams.builder().model("m").prompt(prompt).maxTokens(1);
    if (salt != null) {
      params.putAdditionalBodyProperty("cache_salt", JsonValue.from(salt));
    }
    return client.completions().create(params.build());
  }

  @Test
  void vllmWorker_cacheSaltPerKey_keysNeverShareBlocks_whateverSaltTheirClientsSend()
      throws Exception {
    String alice = "sk-alice-0123456789abcdef";
    String bob = "sk-bob-0123456789abcdef";
    Path keys = Files.writeString(dir.resolve("keys"), "alice " + alice + "\nbob " + bob + "\n");
    WorkerProcess worker =
        worker("m", "--api", "openai", "--kv-events-port", "0", "--kv-replay-port", "0");
    Map<String, List<String>> flags = RouterFixture.workers(worker.httpWorkerSpec("v1"));
    flags.put("served-model-name", List.of("m"));
    flags.put("api-keys-file", List.of(keys.toString()));
    flags.put("cache-salt-per-key", List.of("true"));
    RouterFixture router = router(flags);
    warmUp(router, worker, "v1", "m", alice);
    OpenAIClient aliceClient = client(router, alice);
    OpenAIClient bobClient = client(router, bob);
    String prompt = letters(new Random(12), 200);

    Set<Long> warm = cached(worker);
    Overlap before = Overlap.of(router);
    long promptTokens = complete(aliceClient, prompt, null).usage().get().promptTokens();
    int promptBlocks = (int) (promptTokens / BLOCK_SIZE);
    assertThat(promptBlocks).isGreaterThanOrEqualTo(8);
    assertThat(Overlap.of(router).since(before)).isZero();
    awaitIndexed(router, worker, "v1");
    Set<Long> afterAlice = cached(worker);
    // vLLM's events named the salt in extra_keys; the router hashed alice's blocks under it
    assertThat(indexedTokensHashes(router, "v1"))
        .contains(newFirstBlockHash(worker, warm, "key/alice"))
        .doesNotContain(newFirstBlockHash(worker, warm, null));

    // bob, the same prompt, even claiming alice's namespace as his salt: nothing is shared
    for (String salt : new String[] {null, "key/alice", "alice"}) {
      Set<Long> beforeBob = cached(worker);
      before = Overlap.of(router);
      complete(bobClient, prompt, salt);
      assertThat(Overlap.of(router).since(before)).as("bob with salt " + salt).isZero();
      awaitIndexed(router, worker, "v1");
      assertThat(cached(worker).size() - beforeBob.size())
          .as("the worker computed bob's prompt again (salt " + salt + ")")
          .isGreaterThanOrEqualTo(promptBlocks);
    }
    assertThat(cached(worker)).containsAll(afterAlice);

    // alice with a salt of her own is a namespace of her own
    Set<Long> beforeSalted = cached(worker);
    before = Overlap.of(router);
    complete(aliceClient, prompt, "project-x");
    assertThat(Overlap.of(router).since(before)).isZero();
    awaitIndexed(router, worker, "v1");
    assertThat(cached(worker).size() - beforeSalted.size()).isGreaterThanOrEqualTo(promptBlocks);

    // alice again, as at first: all of her prompt is predicted and reused
    Set<Long> beforeRepeat = cached(worker);
    before = Overlap.of(router);
    complete(aliceClient, prompt, null);
    assertThat(Overlap.of(router).since(before)).as("alice's repeat").isEqualTo(promptBlocks);
    awaitIndexed(router, worker, "v1");
    assertThat(cached(worker).size() - beforeRepeat.size()).isLessThan(promptBlocks);
  }

  @Test
  void badSalts_areRefusedWithAnOpenAiErrorNamingTheField() throws Exception {
    WorkerProcess worker = worker("m", "--api", "openai", "--kv-events-port", "0");
    Map<String, List<String>> flags = RouterFixture.workers(worker.httpWorkerSpec("v1"));
    flags.put("served-model-name", List.of("m"));
    RouterFixture router = router(flags);
    JsonObject body = new JsonObject().put("model", "m").put("prompt", "hi").put("max_tokens", 1);

    Map<String, JsonObject> refused = new HashMap<>();
    refused.put("cache_salt", body.copy().put("cache_salt", ""));
    refused.put(
        "nvext.cache_salt", body.copy().put("nvext", new JsonObject().put("cache_salt", 3)));
    for (Map.Entry<String, JsonObject> bad : refused.entrySet()) {
      Http.Response response = Http.postJson(router.baseUrl + "/v1/completions", bad.getValue());
      assertThat(response.status()).as(response.body()).isEqualTo(400);
      JsonObject error = response.json().getJsonObject("error");
      assertThat(error.getString("param")).isEqualTo(bad.getKey());
      assertThat(error.getString("type")).isEqualTo("invalid_request_error");
    }
    HttpResponse<String> tooLong =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(router.baseUrl + "/v1/completions"))
                    .header("content-type", "application/json")
                    .header("x-tenant-id", "t".repeat(513))
                    .POST(HttpRequest.BodyPublishers.ofString(body.encode()))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(tooLong.statusCode()).isEqualTo(400);
    assertThat(new JsonObject(tooLong.body()).getJsonObject("error").getString("param"))
        .isEqualTo("x-tenant-id");
  }
}
