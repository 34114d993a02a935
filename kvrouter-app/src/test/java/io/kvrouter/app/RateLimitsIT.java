package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.errors.BadRequestException;
import com.openai.errors.RateLimitException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.kvrouter.testing.Http;
import io.kvrouter.testing.ManualTicker;
import io.kvrouter.testing.NodeOpenAiClient;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rate limits per API key on a real router in front of a simulated worker process, driven by the
 * official OpenAI clients (Java and Node, no retries) from many threads at once. The router's
 * limits read a clock the test moves, so a bucket refills only when the test says: "exactly N pass"
 * holds however slow the machine is.
 */
class RateLimitsIT {
  private static final String MODEL = "mock-model";
  private static final String FLAG_KEY = "sk-flag-0123456789";
  private static final String KEY_A = "sk-team-a-0123456789";
  private static final String KEY_B = "sk-team-b-0123456789";
  private static final String KEY_S = "sk-team-s-0123456789";
  private static final String KEY_T = "sk-team-t-0123456789";
  private static final String KEY_L = "sk-team-l-0123456789";
  private static final String KEY_R = "sk-team-r-0123456789";
  private static final String KEY_N = "sk-team-n-0123456789";

  @TempDir Path dir;

  private final ManualTicker clock = new ManualTicker();
  private final ExecutorService threads = Executors.newFixedThreadPool(12);
  private WorkerProcess worker;
  private RouterFixture router;
  private Path keysFile;

  @BeforeEach
  void start() throws Exception {
    worker = WorkerProcess.start(MODEL, 0, 10);
    keysFile =
        Files.writeString(
            dir.resolve("api-keys"),
            String.join(
                "\n",
                "# bursts",
                "team-a " + KEY_A + " rpm=7",
                "team-b " + KEY_B + " rpm=5",
                "# streams in flight",
                "team-s " + KEY_S + " rpm=none concurrency=3",
                "# tokens",
                "team-t " + KEY_T + " rpm=none tpm=1000",
                "team-l " + KEY_L + " rpm=none tpm=300",
                "# reloaded",
                "team-r " + KEY_R + " rpm=2",
                ""));
    Map<String, List<String>> flags = RouterFixture.workers(worker.workerSpec("w0"));
    flags.put("api-key", List.of(FLAG_KEY));
    flags.put("api-keys-file", List.of(keysFile.toString()));
    flags.put("rate-limit-requests-per-minute", List.of("3"));
    flags.put("context-length", List.of("2000"));
    router = RouterFixture.start(flags, clock);
  }

  @AfterEach
  void stop() throws Exception {
    threads.shutdownNow();
    if (router != null) {
      assertThat(router.detector.blockedThreads()).isEmpty();
      router.close();
    }
    worker.close();
  }

  private OpenAIClient client(String key) {
    return OpenAIOkHttpClient.builder()
        .baseUrl(router.baseUrl + "/v1")
        .apiKey(key)
        .maxRetries(0) // the SDK retries a 429 by default
        .build();
  }

  private static ChatCompletionCreateParams chat(Long maxTokens) {
    ChatCompletionCreateParams.Builder params =
        ChatCompletionCreateParams.builder().model(MODEL).addUserMessage("Say hello.");
    if (maxTokens != null) {
      params.maxCompletionTokens(maxTokens);
    }
    return params.build();
  }

  private double metric(String name, String key, String... more) throws Exception {
    Map<String, String> labels = new java.util.HashMap<>(Map.of("key", key));
    for (int i = 0; i < more.length; i += 2) {
      labels.put(more[i], more[i + 1]);
    }
    return Prometheus.sum(Http.get(router.baseUrl + "/metrics").body(), name, labels);
  }

  /**
   * Runs {@code count} calls at once, on {@code count} threads released together; what each
   * returned or threw.
   */
  private static List<Object> atOnce(int count, Callable<Object> call) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(count);
    try {
      return atOnce(pool, count, call);
    } finally {
      pool.shutdownNow();
    }
  }

  private static List<Object> atOnce(ExecutorService pool, int count, Callable<Object> call)
      throws Exception {
    CountDownLatch ready = new CountDownLatch(count);
    List<Future<Object>> results = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      results.add(
          pool.submit(
              () -> {
                ready.countDown();
                ready.await();
                try {
                  return call.call();
                } catch (RuntimeException e) {
                  return e;
                }
              }));
    }
    List<Object> outcomes = new ArrayList<>();
    for (Future<Object> result : results) {
      outcomes.add(result.get(120, TimeUnit.SECONDS));
    }
    return outcomes;
  }

  private static void assertRateLimited(Object outcome, String type) {
    assertThat(outcome).isInstanceOf(RateLimitException.class);
    RateLimitException e = (RateLimitException) outcome;
    assertThat(e.statusCode()).isEqualTo(429);
    assertThat(e.code()).contains("rate_limit_exceeded");
    assertThat(e.type()).contains(type);
    assertThat(e.headers().values("retry-after")).hasSize(1);
    assertThat(Long.parseLong(e.headers().values("retry-after").get(0))).isPositive();
  }

  @Test
  void requestsPerMinute_underConcurrentLoad_exactlyTheLimitPasses_andAReloadKeepsTheCount()
      throws Exception {
    // 40 requests at once from 40 threads, each with its own Java client: exactly 7 pass
    List<Object> outcomes = atOnce(40, () -> client(KEY_A).chat().completions().create(chat(4L)));
    assertThat(outcomes.stream().filter(ChatCompletion.class::isInstance)).hasSize(7);
    List<Object> refused = outcomes.stream().filter(o -> !(o instanceof ChatCompletion)).toList();
    assertThat(refused).hasSize(33);
    for (Object outcome : refused) {
      assertRateLimited(outcome, "requests");
      RateLimitException e = (RateLimitException) outcome;
      // the 8th request is back 8 4/7 s after the burst: 9 s, rounded up
      assertThat(e.headers().values("retry-after")).containsExactly("9");
      assertThat(e.headers().values("x-ratelimit-limit-requests")).containsExactly("7");
      assertThat(e.headers().values("x-ratelimit-remaining-requests")).containsExactly("0");
      assertThat(e.getMessage()).contains("API key 'team-a'").doesNotContain("team-b");
    }
    assertThat(metric("kvrouter_rate_limit_admitted_requests_total", "team-a")).isEqualTo(7);
    assertThat(metric("kvrouter_rate_limit_refused_requests_total", "team-a", "limit", "requests"))
        .isEqualTo(33);

    // the Node client, 20 at once under another key: exactly 5 pass, the rest are RateLimitErrors
    JsonObject node =
        NodeOpenAiClient.run("openai-rate-limit.js", router.baseUrl + "/v1", MODEL, KEY_B, "20");
    assertThat(node.getInteger("ok")).as(node.encode()).isEqualTo(5);
    assertThat(node.getJsonArray("other")).as(node.encode()).isEmpty();
    JsonArray nodeRefused = node.getJsonArray("refused");
    assertThat(nodeRefused).hasSize(15);
    for (Object o : nodeRefused) {
      JsonObject r = (JsonObject) o;
      assertThat(r.getBoolean("rateLimitError")).as(r.encode()).isTrue();
      assertThat(r.getString("code")).isEqualTo("rate_limit_exceeded");
      assertThat(r.getString("type")).isEqualTo("requests");
      assertThat(r.getString("retryAfter")).isEqualTo("12");
    }

    // a key without a line of its own gets the flag's default, 3 a minute, and OpenAI's headers
    // say so on an admitted response too
    HttpResponse<String> admitted =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(router.baseUrl + "/v1/chat/completions"))
                    .header("Authorization", "Bearer " + FLAG_KEY)
                    .header("content-type", "application/json")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"model\":\"mock-model\",\"max_tokens\":4,"
                                + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(admitted.statusCode()).isEqualTo(200);
    assertThat(admitted.headers().firstValue("x-ratelimit-limit-requests")).contains("3");
    assertThat(admitted.headers().firstValue("x-ratelimit-remaining-requests")).contains("2");
    assertThat(admitted.headers().firstValue("x-ratelimit-reset-requests")).contains("20s");
    for (int i = 0; i < 2; i++) {
      client(FLAG_KEY).chat().completions().create(chat(4L));
    }
    assertThatThrownBy(() -> client(FLAG_KEY).chat().completions().create(chat(4L)))
        .isInstanceOf(RateLimitException.class);

    // the clock moves 60/7 s: one more request of team-a's, and only one
    clock.advance(Duration.ofNanos(60_000_000_000L / 7));
    client(KEY_A).chat().completions().create(chat(4L));
    assertThatThrownBy(() -> client(KEY_A).chat().completions().create(chat(4L)))
        .isInstanceOf(RateLimitException.class);

    // a reload gives team-r a higher limit and keeps what it used: 2 used of 2, then 1 more of 3
    client(KEY_R).chat().completions().create(chat(4L));
    client(KEY_R).chat().completions().create(chat(4L));
    assertThatThrownBy(() -> client(KEY_R).chat().completions().create(chat(4L)))
        .isInstanceOf(RateLimitException.class);
    Files.writeString(
        keysFile, Files.readString(keysFile).replace("rpm=2", "rpm=3") + "team-n " + KEY_N + "\n");
    Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> modelsStatus(KEY_N) == 200);
    client(KEY_R).chat().completions().create(chat(4L));
    assertThatThrownBy(() -> client(KEY_R).chat().completions().create(chat(4L)))
        .isInstanceOf(RateLimitException.class);
    // team-a's count survived the reload too
    assertThatThrownBy(() -> client(KEY_A).chat().completions().create(chat(4L)))
        .isInstanceOf(RateLimitException.class);
  }

  @Test
  void concurrentStreams_noMoreThanTheCapReachTheWorker() throws Exception {
    // the worker stops (SIGSTOP): a stream let in stays in flight until it resumes
    worker.suspend();
    CountDownLatch refusals = new CountDownLatch(9);
    List<Future<Object>> streams = new ArrayList<>();
    CountDownLatch ready = new CountDownLatch(12);
    for (int i = 0; i < 12; i++) {
      streams.add(
          threads.submit(
              () -> {
                ready.countDown();
                ready.await();
                try (StreamResponse<ChatCompletionChunk> stream =
                    client(KEY_S).chat().completions().createStreaming(chat(8L))) {
                  return stream.stream().count();
                } catch (RateLimitException e) {
                  refusals.countDown();
                  return e;
                }
              }));
    }
    assertThat(refusals.await(120, TimeUnit.SECONDS)).as("9 refusals").isTrue();
    // the 3 admitted may still be on their way to the worker: wait for them to arrive there
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(60))
        .until(() -> router.app.routerWorkers().get(0).activeRequests() == 3);
    assertThat(
            metric("kvrouter_rate_limit_refused_requests_total", "team-s", "limit", "concurrency"))
        .isEqualTo(9);

    worker.resume();
    int passed = 0;
    for (Future<Object> stream : streams) {
      Object outcome = stream.get(120, TimeUnit.SECONDS);
      if (outcome instanceof RateLimitException e) {
        assertRateLimited(e, "requests");
        assertThat(e.getMessage()).contains("Concurrency limit reached for API key 'team-s'");
      } else {
        assertThat((Long) outcome).isPositive();
        passed++;
      }
    }
    assertThat(passed).isEqualTo(3);
    // the places are free again
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> router.app.routerWorkers().get(0).activeRequests() == 0);
    List<Object> again = atOnce(3, () -> client(KEY_S).chat().completions().create(chat(4L)));
    assertThat(again).allMatch(ChatCompletion.class::isInstance);
  }

  @Test
  void tokens_bookedAtAdmission_refusedWhenShort_andCorrectedAtTheEnd() throws Exception {
    // without max_tokens the booking is what the context leaves (2000), at most the minute's 1000
    ChatCompletion first = client(KEY_T).chat().completions().create(chat(null));
    long prompt = first.usage().orElseThrow().promptTokens();
    long used = first.usage().orElseThrow().totalTokens();
    assertThat(metric("kvrouter_rate_limit_booked_tokens_total", "team-t")).isEqualTo(1000);
    assertThat(metric("kvrouter_rate_limit_used_tokens_total", "team-t")).isEqualTo(used);
    assertThat(used).isLessThan(1000);

    // another such request would book 1000 again: refused for tokens, until the used ones return
    RateLimitException refused =
        (RateLimitException) catchFrom(() -> client(KEY_T).chat().completions().create(chat(null)));
    assertRateLimited(refused, "tokens");
    // used tokens cost 60 ms each to refill
    assertThat(refused.headers().values("retry-after"))
        .containsExactly(Long.toString((used * 60 + 999) / 1000));
    assertThat(refused.headers().values("x-ratelimit-limit-tokens")).containsExactly("1000");

    // what the correction gave back: exactly the rest of the minute fits, and it is admitted
    ChatCompletion fits = client(KEY_T).chat().completions().create(chat(1000 - used - prompt));
    assertThat(fits.choices()).hasSize(1);

    // a request that can never fit the key's minute is a 400 that says so
    assertThatThrownBy(() -> client(KEY_L).chat().completions().create(chat(400L)))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("Request too large for API key 'team-l' on tokens per min (TPM)")
        .hasMessageContaining("Limit 300");

    // a stream the client drops is settled with what it used
    clock.advance(Duration.ofMinutes(1)); // team-t's bucket is full again
    double usedBefore = metric("kvrouter_rate_limit_used_tokens_total", "team-t");
    try (StreamResponse<ChatCompletionChunk> stream =
        client(KEY_T).chat().completions().createStreaming(chat(1000 - prompt))) {
      assertThat(stream.stream().findFirst()).isPresent();
      worker.suspend(); // no more tokens come: the drop is what ends it
    }
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> metric("kvrouter_rate_limit_used_tokens_total", "team-t") > usedBefore);
    long cancelled =
        (long) (metric("kvrouter_rate_limit_used_tokens_total", "team-t") - usedBefore);
    assertThat(cancelled).isLessThan(1000);
    worker.resume();
    ChatCompletion afterDrop =
        client(KEY_T).chat().completions().create(chat(1000 - cancelled - prompt));
    assertThat(afterDrop.choices()).hasSize(1);
  }

  /** The status of {@code GET /v1/models} with {@code key}. */
  private int modelsStatus(String key) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(router.baseUrl + "/v1/models"))
                .header("Authorization", "Bearer " + key)
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static Object catchFrom(Callable<Object> call) {
    try {
      return call.call();
    } catch (Exception e) {
      return e;
    }
  }
}
