package io.kvrouter.preprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvrouter.frontend.openai.OpenAiRequests;
import io.kvrouter.preprocess.template.ChatTemplate;
import io.kvrouter.protocol.InvalidRequestException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The router's whole chat-request path to prompt text, against what vLLM's server builds from the
 * same request: every case of {@code golden/chat-requests/cases.json} is read as a request body
 * ({@link OpenAiRequests#chat}), shaped and rendered with the model's real template as the router
 * loads it ({@link ModelAssets#load}), and cut for {@code continue_final_message}; the result must
 * equal the golden written by {@code scripts/golden/chat_requests.py} byte for byte, or fail where
 * vLLM fails. Also: the content format the router detects for each model is the one vLLM detects.
 */
class ChatRequestGoldenIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String GOLDEN = "/golden/chat-requests/";

  static Stream<Arguments> cases() throws IOException {
    JsonNode spec = json("cases.json");
    List<Arguments> args = new ArrayList<>();
    for (JsonNode model : spec.get("models")) {
      Iterator<Map.Entry<String, JsonNode>> it = spec.get("cases").fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> c = it.next();
        JsonNode only = c.getValue().get("models");
        boolean applies = only == null;
        for (JsonNode m : only == null ? List.<JsonNode>of() : only) {
          applies |= m.asText().equals(model.asText());
        }
        if (applies) {
          args.add(Arguments.of(model.asText(), c.getKey()));
        }
      }
    }
    return args.stream();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("cases")
  void buildsThePromptVllmBuilds(String model, String caseName) throws IOException {
    JsonNode spec = json("cases.json");
    Clock clock =
        Clock.fixed(
            LocalDateTime.parse(spec.get("strftime_now").asText()).toInstant(ZoneOffset.UTC),
            ZoneOffset.UTC);
    ChatTemplate template = TestModels.assets(model).chatTemplate().withClock(clock);
    JsonObject body =
        new JsonObject(spec.get("cases").get(caseName).get("request").toString())
            .put("model", model);
    String ok = resource(GOLDEN + model + "/" + caseName + ".txt");
    if (ok != null) {
      Prompt.Chat chat = (Prompt.Chat) OpenAiRequests.chat(body).prompt();
      assertThat(ChatRendering.text(template, chat)).isEqualTo(ok);
      return;
    }
    String err = resource(GOLDEN + model + "/" + caseName + ".error.txt");
    assertThat(err).as("a golden for " + model + "/" + caseName).isNotNull();
    if (err.startsWith("ValueError: continue_final_message")) {
      // transformers' own wording; the router refuses the same request in its words
      assertThatThrownBy(
              () -> ChatRendering.text(template, (Prompt.Chat) OpenAiRequests.chat(body).prompt()))
          .isInstanceOfSatisfying(
              InvalidRequestException.class,
              e -> assertThat(e.param()).isEqualTo("continue_final_message"));
      return;
    }
    assertThatThrownBy(
            () -> ChatRendering.text(template, (Prompt.Chat) OpenAiRequests.chat(body).prompt()))
        .hasMessageContaining(err);
  }

  /** vLLM says "string" for eight of the nine templates and "openai" only for Gemma 3. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "qwen3",
        "qwen2_5",
        "llama3",
        "llama3_1",
        "llama3_2",
        "deepseek_v3",
        "gemma3",
        "gptoss",
        "mistral_nemo"
      })
  void detectsTheContentFormatVllmDetects(String model) throws IOException {
    String expected = json("content-formats.json").get(model).asText();
    assertThat(TestModels.assets(model).chatTemplate().readsContentParts() ? "openai" : "string")
        .isEqualTo(expected);
    assertThat(expected).isEqualTo(model.equals("gemma3") ? "openai" : "string");
  }

  private static JsonNode json(String name) throws IOException {
    try (InputStream in = ChatRequestGoldenIT.class.getResourceAsStream(GOLDEN + name)) {
      return JSON.readTree(in);
    }
  }

  private static String resource(String path) throws IOException {
    try (InputStream in = ChatRequestGoldenIT.class.getResourceAsStream(path)) {
      return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
