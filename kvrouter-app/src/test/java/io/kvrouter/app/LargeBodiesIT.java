package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.testing.WorkerProcess;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Prompts of millions of token ids, in bodies of 10 to 17 MB, sent at once while a monitor polls
 * {@code /health}: the router parses and checks them on worker threads, so no event loop is held
 * (the fixture's {@link io.kvrouter.testing.BlockedEventLoopDetector} flags any task over 200 ms)
 * and {@code /health} keeps answering. The prompts are larger than any worker's KV cache, so every
 * one is refused with a 400 naming the limit: by the router itself when it knows the workers'
 * capacity, by the worker otherwise.
 */
class LargeBodiesIT {
  private static final int REQUESTS = 4;

  /** A completions body whose prompt is {@code tokens} ids of the demo vocabulary. */
  private static String tokenPrompt(int tokens, int seed) {
    StringBuilder body = new StringBuilder(tokens * 4 + 100);
    body.append("{\"model\":\"mock-model\",\"max_tokens\":1,\"prompt\":[");
    for (int i = 0; i < tokens; i++) {
      if (i > 0) {
        body.append(',');
      }
      body.append(100 + (i * 31 + seed) % 156);
    }
    return body.append("]}").toString();
  }

  @Test
  void hugePromptsForInProcessWorkers_areRefusedByTheRouter_holdingNoEventLoop() throws Exception {
    try (RouterFixture router = RouterFixture.start(Map.of("mock-workers", List.of("2")))) {
      List<HttpResponse<String>> responses = sendWhileProbingHealth(router);

      for (HttpResponse<String> response : responses) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        assertThat(new JsonObject(response.body()).getJsonObject("error").getString("message"))
            .startsWith(
                "The largest worker's KV cache holds 262144 tokens, but this request needs");
      }
      assertThat(router.detector.blockedThreads()).isEmpty();
    }
  }

  @Test
  void hugePromptsForAWorkerOfUnknownCapacity_areRefusedByIt_holdingNoEventLoop() throws Exception {
    try (WorkerProcess worker = WorkerProcess.start("mock-model", 0, 0);
        RouterFixture router = RouterFixture.start(flags(worker))) {
      List<HttpResponse<String>> responses = sendWhileProbingHealth(router);

      for (HttpResponse<String> response : responses) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        assertThat(new JsonObject(response.body()).getJsonObject("error").getString("message"))
            .startsWith("This request does not fit in any worker's KV cache (it needs")
            .contains("the worker holds 262144)");
      }
      assertThat(router.detector.blockedThreads()).isEmpty();
    }
  }

  /**
   * The worker reads each frame of millions of ids before it acknowledges the request, one after
   * another: on a busy machine that can take longer than the default acknowledgement timeout.
   */
  private static Map<String, List<String>> flags(WorkerProcess worker) {
    Map<String, List<String>> flags = RouterFixture.workers(worker.workerSpec("w1"));
    flags.put("tcp-request-timeout", List.of("120"));
    return flags;
  }

  /** Sends the huge prompts at once, checking /health until every one is answered. */
  private static List<HttpResponse<String>> sendWhileProbingHealth(RouterFixture router)
      throws Exception {
    HttpClient client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    List<CompletableFuture<HttpResponse<String>>> posts = new ArrayList<>();
    for (int i = 0; i < REQUESTS; i++) {
      // 2.5 to 4.25 million ids: 10 to 17 MB of JSON
      String body = tokenPrompt(2_500_000 + i * 580_000, i);
      posts.add(
          client.sendAsync(
              HttpRequest.newBuilder(URI.create(router.baseUrl + "/v1/completions"))
                  .header("content-type", "application/json")
                  .timeout(Duration.ofMinutes(3))
                  .POST(HttpRequest.BodyPublishers.ofString(body))
                  .build(),
              HttpResponse.BodyHandlers.ofString()));
    }
    CompletableFuture<Void> all = CompletableFuture.allOf(posts.toArray(CompletableFuture[]::new));
    int healthChecks = 0;
    while (!all.isDone()) {
      HttpResponse<String> health =
          client.send(
              HttpRequest.newBuilder(URI.create(router.baseUrl + "/health"))
                  .timeout(Duration.ofMinutes(1))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
      healthChecks++;
    }
    all.get(3, TimeUnit.MINUTES);
    assertThat(healthChecks).isPositive();
    List<HttpResponse<String>> responses = new ArrayList<>();
    for (CompletableFuture<HttpResponse<String>> post : posts) {
      responses.add(post.get());
    }
    return responses;
  }
}
