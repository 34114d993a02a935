package io.kvrouter.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.common.PlainEngine;
import io.kvrouter.common.Ticker;
import io.kvrouter.config.ConnectionLimits;
import io.kvrouter.config.HttpConfig;
import io.kvrouter.config.KvRouterConfig;
import io.kvrouter.config.RouterMode;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.metrics.Metrics;
import io.kvrouter.preprocess.ModelAssets;
import io.kvrouter.preprocess.OutputParsers;
import io.kvrouter.preprocess.Preprocessor;
import io.kvrouter.preprocess.TestModels;
import io.kvrouter.preprocess.parse.ReasoningParserName;
import io.kvrouter.preprocess.parse.ToolCallParserName;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.vllm.VllmCompletions;
import io.kvrouter.routing.Migration;
import io.kvrouter.routing.RouteTarget;
import io.kvrouter.routing.Router;
import io.kvrouter.routing.Routers;
import io.kvrouter.testing.Futures;
import io.kvrouter.testing.Http;
import io.kvrouter.transport.http.HttpRequestPlane;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The reasoning and tool-call parsers over the HTTP worker plane, as over Dynamo's: a scripted
 * {@code vllm serve} (an HTTP server in this test that streams, one token id per chunk, the tokens
 * of what Qwen3 writes, in vLLM's chunk shape) behind the real {@link HttpRequestPlane}, Qwen3's
 * real template and tokenizer, and the frontend. The router detokenizes the ids it gets back, so
 * the parsers see the answer cut at every token boundary.
 */
class HttpPlaneParsersIT {
  private static final String ANSWER =
      "<think>\nThe user wants the weather.\n</think>\n\n<tool_call>\n{\"name\": \"get_weather\","
          + " \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";

  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() throws Exception {
    Futures.result(vertx.close());
  }

  @Test
  void toolCallsAndReasoning_comeBackParsed_fromAPlainEngine() throws Exception {
    ModelAssets assets = ModelAssets.load(TestModels.dir("qwen3"));
    int[] ids = assets.tokenizer().encode(ANSWER, false);
    int port =
        serve(
            assets,
            response -> {
              for (int i = 0; i < ids.length; i++) {
                String finish = i == ids.length - 1 ? "stop" : null;
                response.write(
                    "data: "
                        + VllmCompletions.chunk(
                            "cmpl-1", 1, "qwen3", "", new int[] {ids[i]}, finish)
                        + "\n\n");
              }
              response.end("data: [DONE]\n\n");
            });

    Http.Response response =
        Http.post(
            "http://127.0.0.1:" + port + "/v1/chat/completions",
            "{\"model\":\"qwen3\",\"max_tokens\":200,\"messages\":[{\"role\":\"user\","
                + "\"content\":\"weather in Paris?\"}],\"tools\":[{\"type\":\"function\","
                + "\"function\":{\"name\":\"get_weather\",\"parameters\":{\"type\":\"object\","
                + "\"properties\":{\"city\":{\"type\":\"string\"}}}}}]}");
    assertThat(response.status()).as(response.body()).isEqualTo(200);
    JsonObject choice = response.json().getJsonArray("choices").getJsonObject(0);
    assertThat(choice.getString("finish_reason")).isEqualTo("tool_calls");
    JsonObject message = choice.getJsonObject("message");
    assertThat(message.getString("reasoning_content")).isEqualTo("\nThe user wants the weather.\n");
    JsonObject call = message.getJsonArray("tool_calls").getJsonObject(0);
    assertThat(call.getJsonObject("function").getString("name")).isEqualTo("get_weather");
    assertThat(new JsonObject(call.getJsonObject("function").getString("arguments")))
        .isEqualTo(new JsonObject().put("city", "Paris"));
  }

  @Test
  void oddLines_readAsTextAsTheyAlwaysWere() throws Exception {
    // Unicode space after "data:", a byte that is not UTF-8 inside the chunk's text, and a
    // control character after [DONE]: the engine's bytes path gives way to the text path
    ModelAssets assets = ModelAssets.load(TestModels.dir("qwen3"));
    int[] ids = assets.tokenizer().encode("Hello there", false);
    int port =
        serve(
            assets,
            response -> {
              response.write(
                  "data:\u3000"
                      + VllmCompletions.chunk("c", 1, "qwen3", "", new int[] {ids[0]}, null)
                      + "\n\n");
              String next =
                  VllmCompletions.chunk("c", 1, "qwen3", "BAD", new int[] {ids[1]}, "length")
                      .toString();
              byte[] bytes =
                  ("data: " + next + "\n\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
              int bad = new String(bytes, java.nio.charset.StandardCharsets.UTF_8).indexOf("BAD");
              bytes[bad] = (byte) 0xff;
              response.write(io.vertx.core.buffer.Buffer.buffer(bytes));
              response.end("data: [DONE]\u001f\n\n");
            });

    Http.Response response =
        Http.post(
            "http://127.0.0.1:" + port + "/v1/completions",
            "{\"model\":\"qwen3\",\"max_tokens\":2,\"prompt\":\"hi\"}");
    assertThat(response.status()).as(response.body()).isEqualTo(200);
    JsonObject choice = response.json().getJsonArray("choices").getJsonObject(0);
    assertThat(choice.getString("text")).isEqualTo("Hello there");
    assertThat(choice.getString("finish_reason")).isEqualTo("length");
  }

  /**
   * A scripted engine whose streamed answers {@code answer} writes, behind a round-robin router and
   * the frontend serving {@code assets} as qwen3; returns the frontend's port.
   */
  private int serve(ModelAssets assets, Handler<HttpServerResponse> answer) throws Exception {
    HttpServer engine =
        Futures.result(
            vertx
                .createHttpServer()
                .requestHandler(
                    request -> {
                      if (request.path().equals("/health")) {
                        request.response().end();
                        return;
                      }
                      request
                          .response()
                          .setChunked(true)
                          .putHeader("content-type", "text/event-stream");
                      answer.handle(request.response());
                    })
                .listen(0, "127.0.0.1"));
    Router router =
        Routers.create(
            RouterMode.ROUND_ROBIN,
            KvRouterConfig.DEFAULTS,
            16,
            List.of(
                new RouteTarget(
                    WorkerEndpoint.http(
                        "v1",
                        URI.create("http://127.0.0.1:" + engine.actualPort()),
                        PlainEngine.VLLM),
                    1000)),
            HttpRequestPlane.create(
                vertx,
                TcpConfig.defaults("127.0.0.1", 1 << 20),
                64,
                io.kvrouter.config.EngineTls.DEFAULTS),
            Duration.ofSeconds(120),
            Migration.OFF,
            vertx,
            new SimpleMeterRegistry());
    Futures.result(router.start());
    Metrics metrics = new Metrics();
    ServedModels models = new ServedModels(metrics, Ticker.SYSTEM);
    models.add(
        new Preprocessor(
            vertx,
            assets,
            "qwen3",
            router,
            new OutputParsers(ReasoningParserName.QWEN3, ToolCallParserName.HERMES)),
        16);
    HttpServer frontend =
        Futures.result(
            new HttpFrontend(
                    models,
                    metrics,
                    new HttpConfig(
                        "127.0.0.1",
                        0,
                        1 << 20,
                        Duration.ofSeconds(1),
                        503,
                        ConnectionLimits.DEFAULTS))
                .createServer(vertx)
                .listen(0, "127.0.0.1"));
    return frontend.actualPort();
  }
}
