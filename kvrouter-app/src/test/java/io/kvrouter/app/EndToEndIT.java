package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionCreateParams;
import io.kvrouter.testing.Http;
import io.kvrouter.testing.NodeOpenAiClient;
import io.kvrouter.testing.Prometheus;
import io.kvrouter.testing.WorkerProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The whole path over real sockets: OpenAI clients → router (HTTP, template, tokenizer, routing,
 * TCP request plane, call-home response stream, detokenizer, SSE) → two worker processes.
 */
class EndToEndIT {
  private static final String MODEL = "mock-model";
  private static WorkerProcess w1;
  private static WorkerProcess w2;
  private static RouterFixture router;
  private static OpenAIClient client;

  @BeforeAll
  static void start() throws Exception {
    w1 = WorkerProcess.start(MODEL, 5, 2);
    w2 = WorkerProcess.start(MODEL, 5, 2);
    Map<String, List<String>> flags =
        RouterFixture.workers(w1.workerSpec("w1"), w2.workerSpec("w2"));
    flags.put("http-body-limit-mb", List.of("1"));
    router = RouterFixture.start(flags);
    client =
        OpenAIOkHttpClient.builder()
            .baseUrl(router.baseUrl + "/v1")
            .apiKey("not-used")
            .maxRetries(0)
            .build();
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      assertThat(router.detector.blockedThreads()).as("blocked event loops").isEmpty();
    } finally {
      router.close();
      w1.close();
      w2.close();
    }
  }

  private static ChatCompletionCreateParams chat(String prompt, long maxTokens) {
    return ChatCompletionCreateParams.builder()
        .model(MODEL)
        .addSystemMessage("You are terse.")
        .addUserMessage(prompt)
        .maxCompletionTokens(maxTokens)
        .build();
  }

  @Test
  void routerEndpoints_inRoundRobinMode() throws Exception {
    JsonArray workers = Http.get(router.baseUrl + "/router/workers").json().getJsonArray("workers");
    assertThat(workers).hasSize(2);
    JsonObject first = workers.getJsonObject(0);
    assertThat(first.getString("worker_id")).isEqualTo("w1");
    assertThat(first.getBoolean("healthy")).isTrue();
    assertThat(first.containsKey("cached_blocks")).as("no KV view without kv mode").isFalse();

    Http.Response explain =
        Http.postJson(
            router.baseUrl + "/router/explain",
            new JsonObject().put("model", MODEL).put("prompt", "hello"));
    assertThat(explain.status()).isEqualTo(409);
    assertThat(explain.json().getJsonObject("error").getString("message"))
        .contains("--router-mode kv");

    Http.Response unknownModel =
        Http.postJson(
            router.baseUrl + "/router/explain",
            new JsonObject().put("model", "other").put("prompt", "hello"));
    assertThat(unknownModel.status()).isEqualTo(404);
  }

  @Test
  void openaiJava_unaryAndStreamedChatAgree() {
    ChatCompletion unary = client.chat().completions().create(chat("Hello there", 32));
    String content = unary.choices().get(0).message().content().orElseThrow();
    assertThat(content).isNotEmpty();
    assertThat(unary.choices().get(0).finishReason().asString()).isEqualTo("length");
    assertThat(unary.usage().orElseThrow().completionTokens()).isEqualTo(32);
    assertThat(unary.usage().orElseThrow().promptTokens()).isGreaterThan(10);

    StringBuilder streamed = new StringBuilder();
    int chunks = 0;
    try (StreamResponse<ChatCompletionChunk> stream =
        client.chat().completions().createStreaming(chat("Hello there", 32))) {
      for (ChatCompletionChunk chunk : (Iterable<ChatCompletionChunk>) stream.stream()::iterator) {
        chunks++;
        chunk.choices().forEach(c -> c.delta().content().ifPresent(streamed::append));
      }
    }
    assertThat(chunks).isGreaterThan(2);
    assertThat(streamed.toString()).isEqualTo(content);
  }

  @Test
  void logprobs_comeFromTheWorkerThroughToTheClient() {
    // the simulated worker draws tokens uniformly from its vocabulary ("a" to "z" once, " " five
    // times: 31 entries), so every token's logprob is ln(1/31), or ln(5/31) for a space
    ChatCompletion completion =
        client
            .chat()
            .completions()
            .create(chat("Say something", 6).toBuilder().logprobs(true).topLogprobs(2).build());
    List<com.openai.models.chat.completions.ChatCompletionTokenLogprob> tokens =
        completion.choices().get(0).logprobs().orElseThrow().content().orElseThrow();
    assertThat(tokens).hasSize(6);
    String text = completion.choices().get(0).message().content().orElseThrow();
    assertThat(tokens.stream().map(t -> t.token()).reduce("", String::concat)).isEqualTo(text);
    for (var token : tokens) {
      double expected = Math.log((token.token().equals(" ") ? 5.0 : 1.0) / 31);
      assertThat(token.logprob()).isCloseTo(expected, org.assertj.core.data.Offset.offset(1e-12));
      assertThat(token.topLogprobs()).hasSize(2);
      assertThat(token.topLogprobs().get(0).token()).isEqualTo(token.token());
    }
    ChatCompletion without = client.chat().completions().create(chat("Say something", 6));
    assertThat(without.choices().get(0).logprobs()).isEmpty();

    Completion text3 =
        client
            .completions()
            .create(
                CompletionCreateParams.builder()
                    .model(MODEL)
                    .prompt("Once")
                    .maxTokens(3)
                    .logprobs(1)
                    .build());
    var lp = text3.choices().get(0).logprobs().orElseThrow();
    assertThat(lp.tokens().orElseThrow()).hasSize(3);
    assertThat(lp.tokenLogprobs().orElseThrow()).hasSize(3);
    assertThat(lp.textOffset().orElseThrow()).startsWith(0L);
  }

  @Test
  void completionsWithSeveralPrompts_answerOneChoiceEach_unaryAndStreamed() {
    CompletionCreateParams params =
        CompletionCreateParams.builder()
            .model(MODEL)
            .promptOfArrayOfStrings(List.of("Once upon a time", "In a galaxy", "Hi"))
            .maxTokens(5)
            .build();
    Completion whole = client.completions().create(params);
    assertThat(whole.choices()).hasSize(3);
    assertThat(whole.choices()).extracting(c -> c.index()).containsExactly(0L, 1L, 2L);
    assertThat(whole.choices()).allSatisfy(c -> assertThat(c.text()).hasSize(5));
    // the demo tokenizer: one token per byte
    assertThat(whole.usage().orElseThrow().promptTokens()).isEqualTo(16 + 11 + 2);
    assertThat(whole.usage().orElseThrow().completionTokens()).isEqualTo(15);

    Map<Long, StringBuilder> texts = new java.util.TreeMap<>();
    Map<Long, String> finishes = new java.util.TreeMap<>();
    try (StreamResponse<Completion> stream = client.completions().createStreaming(params)) {
      stream.stream()
          .flatMap(chunk -> chunk.choices().stream())
          .forEach(
              c -> {
                texts.computeIfAbsent(c.index(), i -> new StringBuilder()).append(c.text());
                // the SDK's finishReason() throws on the null of a chunk that is not the last
                c._finishReason().asKnown().ifPresent(r -> finishes.put(c.index(), r.asString()));
              });
    }
    assertThat(texts.keySet()).containsExactly(0L, 1L, 2L);
    assertThat(texts.values()).allSatisfy(t -> assertThat(t).hasSize(5));
    assertThat(finishes).containsOnlyKeys(0L, 1L, 2L);
  }

  @Test
  void openaiJava_completions() {
    Completion completion =
        client
            .completions()
            .create(
                CompletionCreateParams.builder()
                    .model(MODEL)
                    .prompt("Once upon a time")
                    .maxTokens(8)
                    .build());
    assertThat(completion.choices().get(0).text()).hasSize(8);
    assertThat(completion.usage().orElseThrow().promptTokens()).isEqualTo(16);
  }

  @Test
  void openaiNodeClient_streamingAndNot() throws Exception {
    JsonObject result = NodeOpenAiClient.run("openai-client.js", router.baseUrl + "/v1", MODEL);
    JsonObject unary = result.getJsonObject("unary");
    JsonObject streamed = result.getJsonObject("streamed");
    assertThat(unary.getString("object")).isEqualTo("chat.completion");
    assertThat(unary.getString("content")).isNotEmpty().isEqualTo(streamed.getString("content"));
    assertThat(unary.getJsonObject("usage").getInteger("completion_tokens")).isEqualTo(24);
    assertThat(streamed.getString("finishReason")).isEqualTo("length");
    assertThat(streamed.getJsonObject("usage").getInteger("completion_tokens")).isEqualTo(24);
    assertThat(streamed.getInteger("chunks")).isGreaterThan(2);
    assertThat(result.getJsonObject("completion").getString("text")).hasSize(8);
    assertThat(result.getJsonObject("notFound").getInteger("status")).isEqualTo(404);
  }

  @Test
  void requests_spreadOverBothWorkerProcesses() throws Exception {
    double before1 = w1.metric("dynamo_component_requests_total");
    double before2 = w2.metric("dynamo_component_requests_total");
    for (int i = 0; i < 6; i++) {
      client.chat().completions().create(chat("spread " + i, 4));
    }
    assertThat(w1.metric("dynamo_component_requests_total") - before1).isEqualTo(3);
    assertThat(w2.metric("dynamo_component_requests_total") - before2).isEqualTo(3);
  }

  @Test
  void stopConditions_applyThroughTheWholePath() throws Exception {
    JsonObject base =
        new JsonObject()
            .put("model", MODEL)
            .put(
                "messages",
                new JsonArray().add(new JsonObject().put("role", "user").put("content", "stops")))
            .put("max_tokens", 200);
    String full = content(Http.postJson(router.baseUrl + "/v1/chat/completions", base));
    assertThat(full).hasSize(200);

    String stop = full.substring(60, 63);
    JsonObject stopped =
        Http.postJson(router.baseUrl + "/v1/chat/completions", base.copy().put("stop", stop))
            .json();
    assertThat(content(stopped)).isEqualTo(full.substring(0, full.indexOf(stop)));
    assertThat(stopped.getJsonArray("choices").getJsonObject(0).getString("finish_reason"))
        .isEqualTo("stop");

    JsonObject noSpace =
        Http.postJson(
                router.baseUrl + "/v1/chat/completions",
                base.copy().put("stop_token_ids", new JsonArray().add((int) ' ')))
            .json();
    assertThat(content(noSpace)).isEqualTo(full.substring(0, full.indexOf(' ')));
  }

  private static String content(Http.Response response) {
    assertThat(response.status()).as(response.body()).isEqualTo(200);
    return content(response.json());
  }

  private static String content(JsonObject body) {
    return body.getJsonArray("choices")
        .getJsonObject(0)
        .getJsonObject("message")
        .getString("content");
  }

  @Test
  void badInput_getsItsStatusAndAnOpenAiErrorBody() throws Exception {
    String url = router.baseUrl + "/v1/chat/completions";
    String messages = "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";
    record Case(String body, int status, String param) {}
    List<Case> cases =
        List.of(
            new Case("{", 400, null),
            new Case("[1,2]", 400, null),
            new Case("", 400, null),
            new Case(
                "{\"model\":\"mock-model\"," + messages + ",\"temperature\":\"hot\"}",
                400,
                "temperature"),
            new Case(
                "{\"model\":\"mock-model\"," + messages + ",\"temperature\":3}",
                400,
                "temperature"),
            new Case("{\"model\":\"mock-model\"," + messages + ",\"top_p\":1.5}", 400, "top_p"),
            new Case(
                "{\"model\":\"mock-model\"," + messages + ",\"max_tokens\":\"many\"}",
                400,
                "max_tokens"),
            new Case("{\"model\":\"mock-model\",\"messages\":[]}", 400, "messages"),
            new Case("{\"model\":\"mock-model\",\"messages\":\"hi\"}", 400, "messages"),
            new Case(
                "{\"model\":\"mock-model\"," + messages + ",\"frobnicate\":true}",
                400,
                "frobnicate"),
            new Case(
                "{\"model\":\"mock-model\","
                    + messages
                    + ",\"stop\":[\"a\",\"b\",\"c\",\"d\",\"e\"]}",
                400,
                "stop"),
            new Case("{\"model\":\"mock-model\"," + messages + ",\"n\":2}", 400, "n"),
            new Case("{\"model\":\"mock-model\"," + messages + ",\"n\":200}", 400, "n"),
            new Case("{\"model\":42," + messages + "}", 400, "model"),
            new Case("{\"model\":\"gpt-9\"," + messages + "}", 404, "model"));
    for (Case c : cases) {
      Http.Response response = Http.post(url, c.body());
      assertThat(response.status()).as(c.body()).isEqualTo(c.status());
      assertOpenAiError(response, c.param());
    }
    String large =
        "{\"model\":\"mock-model\",\"messages\":[{\"role\":\"user\",\"content\":\""
            + "x".repeat(2 * 1024 * 1024)
            + "\"}]}";
    Http.Response tooLarge = Http.post(url, large);
    assertThat(tooLarge.status()).isEqualTo(413);
    assertOpenAiError(tooLarge, null);

    Http.Response unknownRoute = Http.post(router.baseUrl + "/v1/embeddings", "{}");
    assertThat(unknownRoute.status()).isEqualTo(404);
    assertOpenAiError(unknownRoute, null);

    Http.Response wrongMethod = Http.get(url);
    assertThat(wrongMethod.status()).isEqualTo(405);
    assertOpenAiError(wrongMethod, null);
  }

  private static void assertOpenAiError(Http.Response response, String param) {
    JsonObject error = response.json().getJsonObject("error");
    assertThat(error).as(response.body()).isNotNull();
    assertThat(error.getString("message")).isNotBlank();
    assertThat(error.getString("type")).isNotBlank();
    assertThat(error.containsKey("param")).isTrue();
    assertThat(error.containsKey("code")).isTrue();
    if (param != null) {
      assertThat(error.getString("param")).as(response.body()).isEqualTo(param);
    }
  }

  @Test
  void clientDisconnectMidStream_cancelsTheRequestAtTheWorker() throws Exception {
    double cancelledBefore = cancelled();
    String body =
        "{\"model\":\"mock-model\",\"stream\":true,\"max_tokens\":100000,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"a very long answer please\"}]}";
    try (Socket socket = new Socket("127.0.0.1", router.app.httpPort())) {
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\n"
                  + "Content-Type: application/json\r\nContent-Length: "
                  + body.getBytes(StandardCharsets.UTF_8).length
                  + "\r\n\r\n"
                  + body)
              .getBytes(StandardCharsets.UTF_8));
      out.flush();
      InputStream in = socket.getInputStream();
      StringBuilder seen = new StringBuilder();
      while (seen.indexOf("data: {") < 0 || seen.length() < 2000) {
        int b = in.read();
        assertThat(b).as("stream ended early: " + seen).isNotNegative();
        seen.append((char) b);
      }
      assertThat(
              w1.metric("dynamo_component_inflight_requests")
                  + w2.metric("dynamo_component_inflight_requests"))
          .isEqualTo(1);
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(cancelled()).isGreaterThanOrEqualTo(cancelledBefore + 1);
              assertThat(
                      w1.metric("dynamo_component_inflight_requests")
                          + w2.metric("dynamo_component_inflight_requests"))
                  .isZero();
            });
    assertThat(
            Prometheus.sum(
                Http.get(router.baseUrl + "/metrics").body(),
                "dynamo_frontend_disconnected_clients_total"))
        .isGreaterThanOrEqualTo(1);
  }

  private static double cancelled() throws Exception {
    return w1.metric("kvrouter_worker_cancelled_requests_total")
        + w2.metric("kvrouter_worker_cancelled_requests_total");
  }

  @Test
  void modelsHealthLiveAndMetrics() throws Exception {
    client.chat().completions().create(chat("metrics", 8));
    JsonObject models = Http.get(router.baseUrl + "/v1/models").json();
    assertThat(models.getJsonArray("data").getJsonObject(0).getString("id")).isEqualTo(MODEL);
    Http.Response health = Http.get(router.baseUrl + "/health");
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.json().getJsonArray("models").getString(0)).isEqualTo(MODEL);
    assertThat(Http.get(router.baseUrl + "/live").status()).isEqualTo(200);

    String metrics = Http.get(router.baseUrl + "/metrics").body();
    assertThat(Prometheus.sum(metrics, "dynamo_frontend_requests_total")).isPositive();
    assertThat(metrics)
        .contains(
            "dynamo_frontend_requests_total{endpoint=\"chat_completions\",model=\"mock-model\",request_type=\"unary\",status=\"success\"}")
        .contains("dynamo_frontend_inflight_requests{")
        .contains("dynamo_frontend_time_to_first_token_seconds_bucket{")
        .contains("dynamo_frontend_inter_token_latency_seconds_bucket{")
        .contains("dynamo_frontend_input_sequence_tokens_bucket{")
        .contains("dynamo_frontend_output_sequence_tokens_bucket{")
        .contains("dynamo_frontend_request_duration_seconds_bucket{")
        .contains("dynamo_frontend_model_kv_cache_block_size{model=\"mock-model\"} 16");
  }
}
