package io.kvrouter.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.ConnectionLimits;
import io.kvrouter.config.HttpConfig;
import io.kvrouter.config.KvRouterConfig;
import io.kvrouter.config.RouterMode;
import io.kvrouter.metrics.Metrics;
import io.kvrouter.preprocess.ModelAssets;
import io.kvrouter.preprocess.OutputParsers;
import io.kvrouter.preprocess.Preprocessor;
import io.kvrouter.preprocess.TestModels;
import io.kvrouter.preprocess.parse.ReasoningParserName;
import io.kvrouter.preprocess.parse.ToolCallParserName;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.routing.Migration;
import io.kvrouter.routing.RouteTarget;
import io.kvrouter.routing.Router;
import io.kvrouter.routing.Routers;
import io.kvrouter.testing.FakeRequestPlane;
import io.kvrouter.testing.Futures;
import io.kvrouter.testing.NodeOpenAiClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Qwen3's real chat template and tokenizer behind the HTTP API, driven by the official {@code
 * openai} npm client: a tool-calling conversation (the call, then its result sent back) and a
 * reasoning request, unary and streamed, come back in OpenAI's shapes. The worker is a scripted
 * {@link FakeRequestPlane}: it answers each request with the tokens of what Qwen3 writes for it,
 * one token per output, so the parsers see the answer cut at every token boundary.
 */
class ToolsAndReasoningIT {
  private static final String MODEL = "qwen3";
  private static final String TOOL_ANSWER =
      "<think>\nThe user wants the weather.\n</think>\n\n<tool_call>\n{\"name\": \"get_weather\","
          + " \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
  private static final String FOLLOW_UP_ANSWER =
      "<think>\nThe tool said 22.\n</think>\n\nIt is 22 °C in Paris.";
  private static final String REASONING_ANSWER =
      "<think>\n17 has no divisor but 1 and itself.\n</think>\n\nYes, 17 is prime.";

  private final Vertx vertx = Vertx.vertx();
  private final FakeRequestPlane plane =
      new FakeRequestPlane().set("w1", FakeRequestPlane.Behaviour.HOLD);
  private final Map<String, String> prompts = new ConcurrentHashMap<>();

  @AfterEach
  void close() throws Exception {
    Futures.result(vertx.close());
  }

  @Test
  void toolCallsAndReasoning_comeBackInOpenAisShapes() throws Exception {
    ModelAssets assets = ModelAssets.load(TestModels.dir(MODEL));
    Router router =
        Routers.create(
            RouterMode.ROUND_ROBIN,
            KvRouterConfig.DEFAULTS,
            16,
            List.of(new RouteTarget(new WorkerEndpoint("w1", "127.0.0.1", 1, "generate"), 1000)),
            plane,
            Duration.ofSeconds(120),
            Migration.OFF,
            vertx,
            new SimpleMeterRegistry());
    Metrics metrics = new Metrics();
    ServedModels models = new ServedModels(metrics, Ticker.SYSTEM);
    models.add(
        new Preprocessor(
            vertx,
            assets,
            MODEL,
            router,
            new OutputParsers(ReasoningParserName.QWEN3, ToolCallParserName.HERMES)),
        16);
    HttpFrontend frontend =
        new HttpFrontend(
            models,
            metrics,
            new HttpConfig(
                "127.0.0.1", 0, 1 << 20, Duration.ofSeconds(1), 503, ConnectionLimits.DEFAULTS));
    HttpServer server = Futures.result(frontend.createServer(vertx).listen(0, "127.0.0.1"));
    Thread worker = new Thread(() -> answerRequests(assets), "scripted-worker");
    worker.setDaemon(true);
    worker.start();

    JsonObject result =
        NodeOpenAiClient.run(
            "openai-tools.js", "http://127.0.0.1:" + server.actualPort() + "/v1", MODEL);

    // the tool call, unary: content null, the call with JSON-string arguments, finish tool_calls
    JsonObject unary = result.getJsonObject("toolUnary");
    assertThat(unary.getString("finishReason")).isEqualTo("tool_calls");
    JsonObject message = unary.getJsonObject("message");
    assertThat(message.getValue("content")).isNull();
    assertThat(message.getString("reasoning_content")).isEqualTo("\nThe user wants the weather.\n");
    JsonObject call = message.getJsonArray("tool_calls").getJsonObject(0);
    assertThat(call.getString("id")).startsWith("chatcmpl-tool-");
    assertThat(call.getString("type")).isEqualTo("function");
    assertThat(call.getJsonObject("function").getString("name")).isEqualTo("get_weather");
    assertThat(new JsonObject(call.getJsonObject("function").getString("arguments")))
        .isEqualTo(new JsonObject().put("city", "Paris"));

    // streamed: the same call, merged from deltas by index
    JsonObject streamed = result.getJsonObject("toolStreamed");
    assertThat(streamed.getString("finishReason")).isEqualTo("tool_calls");
    JsonObject streamedCall =
        streamed.getJsonObject("message").getJsonArray("tool_calls").getJsonObject(0);
    assertThat(streamedCall.getJsonObject("function")).isEqualTo(call.getJsonObject("function"));
    assertThat(streamed.getJsonObject("message").getString("content").strip()).isEmpty();
    assertThat(streamed.getJsonObject("message").getString("reasoning_content"))
        .isEqualTo("\nThe user wants the weather.\n");

    // the tool result went back through the template, the call's arguments as an object and,
    // as Qwen3 keeps it for turns after the last user question, the reasoning sent back
    JsonObject followUp = result.getJsonObject("followUp");
    assertThat(followUp.getString("finishReason")).isEqualTo("stop");
    assertThat(followUp.getJsonObject("message").getString("content"))
        .isEqualTo("\n\nIt is 22 °C in Paris.");

    for (String name : List.of("reasoningUnary", "reasoningStreamed")) {
      JsonObject reasoning = result.getJsonObject(name);
      assertThat(reasoning.getString("finishReason")).as(name).isEqualTo("stop");
      assertThat(reasoning.getJsonObject("message").getString("reasoning_content"))
          .as(name)
          .isEqualTo("\n17 has no divisor but 1 and itself.\n");
      assertThat(reasoning.getJsonObject("message").getString("content"))
          .as(name)
          .isEqualTo("\n\nYes, 17 is prime.");
      assertThat(
              reasoning.getJsonObject("message").containsKey("tool_calls")
                  && !reasoning
                      .getJsonObject("message")
                      .getJsonArray("tool_calls", new JsonArray())
                      .isEmpty())
          .as(name)
          .isFalse();
    }

    // what the worker was asked: the tools in Qwen3's system block, then the call and its result
    String toolPrompt =
        prompts.values().stream()
            .filter(p -> p.contains("<tools>") && !p.contains("<tool_response>"))
            .findFirst()
            .orElseThrow();
    assertThat(toolPrompt)
        .contains(
            "<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"get_weather\","
                + " \"description\": \"Current weather of a city\", \"parameters\": {\"type\":"
                + " \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}, \"required\":"
                + " [\"city\"]}}}\n</tools>")
        .endsWith(
            "<|im_start|>user\nWhat is the weather in Paris?<|im_end|>\n"
                + "<|im_start|>assistant\n");
    String followUpPrompt =
        prompts.values().stream()
            .filter(p -> p.contains("<tool_response>"))
            .findFirst()
            .orElseThrow();
    assertThat(followUpPrompt)
        .endsWith(
            "<|im_start|>assistant\n<think>\nThe user wants the weather.\n</think>\n\n"
                + "<tool_call>\n{\"name\": \"get_weather\", \"arguments\":"
                + " {\"city\": \"Paris\"}}\n</tool_call><|im_end|>\n<|im_start|>user\n"
                + "<tool_response>\n{\"temperature\": 22}\n</tool_response><|im_end|>\n"
                + "<|im_start|>assistant\n");
  }

  /**
   * Answers each held request, as it arrives, with the tokens of the text Qwen3 would write, one
   * per output; ends when the thread is interrupted.
   */
  private void answerRequests(ModelAssets assets) {
    while (true) {
      String id;
      try {
        id = plane.heldInOrder.take();
      } catch (InterruptedException e) {
        return;
      }
      FakeRequestPlane.Held held = plane.held.get(id);
      String prompt = assets.tokenizer().decode(plane.requestOf.get(id).tokenIds());
      prompts.put(id, prompt);
      String answer =
          prompt.contains("<tool_response>")
              ? FOLLOW_UP_ANSWER
              : prompt.contains("weather") ? TOOL_ANSWER : REASONING_ANSWER;
      int[] ids = assets.tokenizer().encode(answer);
      vertx.runOnContext(
          v -> {
            for (int token : ids) {
              held.send(token);
            }
            held.answer();
          });
    }
  }
}
