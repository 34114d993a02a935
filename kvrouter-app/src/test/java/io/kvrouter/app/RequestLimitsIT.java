package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.testing.Http;
import io.kvrouter.testing.WorkerProcess;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Requests longer than the model's context length or than any worker's KV cache: a 400 that names
 * the limit (not a 503 an OpenAI SDK would retry), decided by the router before sending when it
 * knows the limit, mapped from the worker's refusal when only the worker knows it. The demo
 * tokenizer makes a prompt of N ASCII characters N tokens.
 */
class RequestLimitsIT {

  private static String completion(int promptTokens, String more) {
    return "{\"model\":\"mock-model\",\"prompt\":\"" + "x".repeat(promptTokens) + "\"" + more + "}";
  }

  private static JsonObject error(Http.Response response, int status) {
    assertThat(response.status()).as(response.body()).isEqualTo(status);
    JsonObject error = response.json().getJsonObject("error");
    assertThat(error.fieldNames()).containsExactlyInAnyOrder("message", "type", "param", "code");
    return error;
  }

  @Test
  void theContextLengthFlag_boundsMaxTokens_andCutsACompletionWithoutIt() throws Exception {
    Map<String, List<String>> flags = new HashMap<>();
    flags.put("mock-workers", List.of("1"));
    flags.put("mock-ttft-ms", List.of("0"));
    flags.put("mock-itl-ms", List.of("0"));
    flags.put("context-length", List.of("40"));
    try (RouterFixture router = RouterFixture.start(flags)) {
      String completions = router.baseUrl + "/v1/completions";

      JsonObject tooLong = error(Http.post(completions, completion(30, ",\"max_tokens\":11")), 400);
      assertThat(tooLong.getString("param")).isEqualTo("max_tokens");
      assertThat(tooLong.getString("message"))
          .isEqualTo(
              "This model's context length is 40 tokens, but this request needs 41: 30 in the"
                  + " prompt and 11 for the completion ('max_tokens'). Shorten the prompt or"
                  + " lower 'max_tokens'.");

      JsonObject chat =
          error(
              Http.post(
                  router.baseUrl + "/v1/chat/completions",
                  "{\"model\":\"mock-model\",\"max_completion_tokens\":41,"
                      + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"),
              400);
      assertThat(chat.getString("param")).isEqualTo("max_completion_tokens");
      assertThat(chat.getString("message")).contains("context length of 40 tokens");

      JsonObject minTokens =
          error(Http.post(completions, completion(5, ",\"max_tokens\":4,\"min_tokens\":5")), 400);
      assertThat(minTokens.getString("param")).isEqualTo("min_tokens");

      // the simulated worker stops on its own after 16 to 64 tokens: the context leaves 10
      Http.Response cut = Http.post(completions, completion(30, ""));
      assertThat(cut.status()).as(cut.body()).isEqualTo(200);
      assertThat(cut.json().getJsonArray("choices").getJsonObject(0).getString("finish_reason"))
          .isEqualTo("length");
      assertThat(cut.json().getJsonObject("usage").getInteger("completion_tokens")).isEqualTo(10);
      assertThat(router.detector.blockedThreads()).isEmpty();
    }
  }

  @Test
  void aPromptLargerThanTheMockWorkersKvCache_is400_notA503() throws Exception {
    Map<String, List<String>> flags = new HashMap<>();
    flags.put("mock-workers", List.of("2"));
    flags.put("mock-num-gpu-blocks", List.of("4")); // 64 tokens each
    try (RouterFixture router = RouterFixture.start(flags)) {
      String completions = router.baseUrl + "/v1/completions";

      JsonObject tooLarge = error(Http.post(completions, completion(100, "")), 400);
      assertThat(tooLarge.getString("type")).isEqualTo("invalid_request_error");
      assertThat(tooLarge.getString("param")).isEqualTo("prompt");
      assertThat(tooLarge.getString("message"))
          .isEqualTo(
              "The largest worker's KV cache holds 64 tokens, but the prompt alone has 100,"
                  + " which leaves no room for a completion. Shorten the prompt.");

      assertThat(Http.post(completions, completion(40, ",\"max_tokens\":4")).status())
          .isEqualTo(200);
    }
  }

  @Test
  void aWorkersRefusalOfAPromptItCanNeverHold_is400_withoutItsInternals() throws Exception {
    try (WorkerProcess worker =
            WorkerProcess.start(
                "mock-model", 0, 0, List.of("--port", "0", "--num-gpu-blocks", "4"));
        RouterFixture router =
            RouterFixture.start(RouterFixture.workers(worker.workerSpec("w1")))) {
      JsonObject refused =
          error(Http.post(router.baseUrl + "/v1/completions", completion(100, "")), 400);

      assertThat(refused.getString("type")).isEqualTo("invalid_request_error");
      assertThat(refused.getString("message"))
          .isEqualTo(
              "This request does not fit in any worker's KV cache (it needs 100 tokens of KV"
                  + " cache, the worker holds 64). Shorten the prompt or lower 'max_tokens'.");
      assertThat(router.app.routerWorkers().get(0).healthy()).isTrue();
    }
  }
}
