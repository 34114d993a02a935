package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.openai.client.OpenAIClient;
import com.openai.errors.OpenAIServiceException;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionCreateParams;
import io.kvrouter.testing.Http;
import io.kvrouter.testing.Prometheus;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code --router-mode kv} end to end: a router with four simulated workers, driven by the
 * openai-java client, checked through {@code /router/explain}, {@code /router/workers}, the
 * workers' own request counters and {@code /metrics}.
 */
class KvRoutingIT {
  private static final String MODEL = "mock-model";
  private static final int BLOCK_SIZE = 16;

  private static Map<String, List<String>> kvRouter(int workers) {
    Map<String, List<String>> flags = new HashMap<>();
    flags.put("router-mode", List.of("kv"));
    flags.put("kv-events", List.of("false")); // approximate mode: learned from decisions
    flags.put("mock-workers", List.of(String.valueOf(workers)));
    flags.put("mock-ttft-ms", List.of("0"));
    flags.put("mock-itl-ms", List.of("0"));
    flags.put("kv-cache-block-size", List.of(String.valueOf(BLOCK_SIZE)));
    return flags;
  }

  /** {@code length} random lowercase letters: with the demo tokenizer, one token each. */
  private static String text(Random random, int length) {
    StringBuilder text = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      text.append((char) ('a' + random.nextInt(26)));
    }
    return text.toString();
  }

  private static Completion complete(OpenAIClient client, String prompt) {
    return client
        .completions()
        .create(CompletionCreateParams.builder().model(MODEL).prompt(prompt).maxTokens(4).build());
  }

  private static JsonObject explain(RouterFixture router, String prompt) throws Exception {
    Http.Response response =
        Http.postJson(
            router.baseUrl + "/router/explain",
            new JsonObject().put("model", MODEL).put("prompt", prompt).put("max_tokens", 4));
    assertThat(response.status()).as(response.body()).isEqualTo(200);
    return response.json();
  }

  private static long activePrefillTokens(RouterFixture router) throws Exception {
    return Http.get(router.baseUrl + "/router/workers")
        .json()
        .getJsonArray("workers")
        .getJsonObject(0)
        .getLong("active_prefill_tokens");
  }

  private static JsonObject workerCost(JsonObject explanation, String workerId) {
    JsonArray workers = explanation.getJsonArray("workers");
    for (int i = 0; i < workers.size(); i++) {
      if (workers.getJsonObject(i).getString("worker_id").equals(workerId)) {
        return workers.getJsonObject(i);
      }
    }
    throw new AssertionError(workerId + " missing from " + explanation);
  }

  /** Each worker's own count of requests it accepted, by worker id. */
  private static Map<String, Double> requestsPerWorker(RouterFixture router, int workers)
      throws Exception {
    String metrics = Http.get(router.baseUrl + "/metrics").body();
    Map<String, Double> counts = new HashMap<>();
    for (int i = 1; i <= workers; i++) {
      String worker = "mock-" + i;
      double count = 0;
      for (String line : metrics.split("\n")) {
        if (line.startsWith("dynamo_component_requests_total{")
            && line.contains("worker=\"" + worker + "\"")) {
          count += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
      }
      counts.put(worker, count);
    }
    return counts;
  }

  /**
   * Sends {@code prompt}, then waits until the router has learned that the worker it chose holds
   * every block of it; returns that worker.
   */
  private static String sendAndLearn(RouterFixture router, OpenAIClient client, String prompt)
      throws Exception {
    String chosen = explain(router, prompt).getJsonObject("chosen").getString("worker_id");
    assertThat(complete(client, prompt).usage().orElseThrow().promptTokens())
        .isEqualTo(prompt.length());
    int blocks = prompt.length() / BLOCK_SIZE;
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                workerCost(explain(router, prompt), chosen).getInteger("overlap_blocks") == blocks);
    return chosen;
  }

  @Test
  void sharedPrefixesLandOnOneWorker_unrelatedPromptsSpreadOverAll() throws Exception {
    try (RouterFixture router = RouterFixture.start(kvRouter(4))) {
      OpenAIClient client = OpenAiRounds.client(router);
      Random random = new Random(42);

      Set<String> unrelated = new HashSet<>();
      for (int i = 0; i < 4; i++) {
        unrelated.add(sendAndLearn(router, client, text(random, 1000)));
      }
      assertThat(unrelated).containsExactlyInAnyOrder("mock-1", "mock-2", "mock-3", "mock-4");
      assertThat(requestsPerWorker(router, 4))
          .allSatisfy((w, count) -> assertThat(count).isEqualTo(1));

      String prefix = text(random, 1000);
      List<String> shared = new ArrayList<>();
      String home = null;
      for (int i = 0; i < 8; i++) {
        String prompt = prefix + text(random, 40);
        JsonObject explanation = explain(router, prompt);
        assertThat(explanation.getInteger("input_tokens")).isEqualTo(1040);
        assertThat(explanation.getInteger("request_blocks")).isEqualTo(1040 / BLOCK_SIZE);
        assertThat(explanation.getJsonArray("workers")).hasSize(4);
        if (home != null) {
          // the worker that served the prefix holds all 62 of its complete blocks and is chosen
          assertThat(explanation.getJsonObject("chosen").getString("worker_id")).isEqualTo(home);
          JsonObject cost = workerCost(explanation, home);
          assertThat(cost.getInteger("overlap_blocks")).isGreaterThanOrEqualTo(1000 / BLOCK_SIZE);
          assertThat(cost.getBoolean("chosen")).isTrue();
          assertThat(cost.getInteger("new_prefill_tokens")).isLessThanOrEqualTo(1040 - 992);
        }
        String served = sendAndLearn(router, client, prompt);
        home = home == null ? served : home;
        shared.add(served);
      }
      assertThat(shared).containsOnly(home);

      Map<String, Double> counts = requestsPerWorker(router, 4);
      for (Map.Entry<String, Double> entry : counts.entrySet()) {
        assertThat(entry.getValue())
            .as(entry.getKey())
            .isEqualTo(entry.getKey().equals(home) ? 9 : 1);
      }

      JsonArray workers =
          Http.get(router.baseUrl + "/router/workers").json().getJsonArray("workers");
      assertThat(workers).hasSize(4);
      for (int i = 0; i < 4; i++) {
        JsonObject worker = workers.getJsonObject(i);
        assertThat(worker.getBoolean("healthy")).isTrue();
        assertThat(worker.getInteger("active_requests")).isZero();
        assertThat(worker.getLong("active_blocks")).isZero();
        assertThat(worker.getLong("total_kv_blocks")).isEqualTo(16384);
        assertThat(worker.getLong("cached_blocks"))
            .isEqualTo(worker.getString("worker_id").equals(home) ? 62 + 8 * 3 + 62 : 62);
      }

      String metrics = Http.get(router.baseUrl + "/metrics").body();
      assertThat(Prometheus.sum(metrics, "kvrouter_routing_decisions_total")).isEqualTo(12);
      assertThat(Prometheus.sum(metrics, "kvrouter_router_overlap_blocks_count")).isEqualTo(12);
      assertThat(Prometheus.sum(metrics, "kvrouter_router_overlap_blocks_sum"))
          .isGreaterThanOrEqualTo(7 * 62);
      assertThat(metrics)
          .contains(
              "dynamo_frontend_worker_active_decode_blocks{dp_rank=\"0\",worker_id=\"mock-1\"")
          .contains("dynamo_frontend_worker_active_prefill_tokens{")
          .contains(
              "dynamo_kvrouter_kv_cache_events_applied_total{event_type=\"stored\",status=\"ok\"}");
      assertThat(router.detector.blockedThreads()).as("blocked event loops").isEmpty();
    }
  }

  @Test
  void whenEveryWorkerIsBusy_theClientGetsTheBusyStatusWithAnOpenAiError() throws Exception {
    Map<String, List<String>> flags = kvRouter(1);
    // no first token while the test looks: the first request holds the worker until its client
    // goes away, however slow the machine
    flags.put("mock-ttft-ms", List.of("600000"));
    flags.put("active-prefill-tokens-threshold", List.of("100"));
    flags.put("busy-status-code", List.of("529"));
    try (RouterFixture router = RouterFixture.start(flags)) {
      OpenAIClient client = OpenAiRounds.client(router);
      Random random = new Random(7);
      // 200 prompt tokens in prefill, over the threshold: the only worker is busy
      Socket first =
          Http.openPost(
              router.app.httpPort(),
              "/v1/completions",
              new JsonObject()
                  .put("model", MODEL)
                  .put("prompt", text(random, 200))
                  .put("max_tokens", 4)
                  .put("stream", true)
                  .encode());
      await().atMost(Duration.ofSeconds(60)).until(() -> activePrefillTokens(router) == 200);

      JsonObject explanation = explain(router, text(random, 32));
      assertThat(explanation.getString("outcome")).isEqualTo("all_busy");
      assertThat(explanation.getValue("chosen")).isNull();
      assertThat(workerCost(explanation, "mock-1").getBoolean("busy")).isTrue();

      Http.Response rejected =
          Http.postJson(
              router.baseUrl + "/v1/completions",
              new JsonObject().put("model", MODEL).put("prompt", "hello").put("max_tokens", 4));
      assertThat(rejected.status()).isEqualTo(529);
      JsonObject error = rejected.json().getJsonObject("error");
      assertThat(error.getString("code")).isEqualTo("all_workers_busy");
      assertThat(error.getString("message")).contains("busy");
      try {
        complete(client, "hello");
        throw new AssertionError("expected the busy status");
      } catch (OpenAIServiceException e) {
        assertThat(e.statusCode()).isEqualTo(529);
      }

      first.close(); // the client goes away: its request leaves the worker
      await().atMost(Duration.ofSeconds(60)).until(() -> activePrefillTokens(router) == 0);
      assertThat(explain(router, "hello").getJsonObject("chosen").getString("worker_id"))
          .isEqualTo("mock-1"); // free again
      String metrics = Http.get(router.baseUrl + "/metrics").body();
      assertThat(metrics.lines())
          .filteredOn(l -> l.startsWith("kvrouter_routing_decisions_total{outcome=\"busy\""))
          .singleElement()
          .satisfies(
              l ->
                  assertThat(Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).isEqualTo(2));
    }
  }
}
