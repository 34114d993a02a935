package io.kvrouter.preprocess;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.KvRouterConfig;
import io.kvrouter.config.RouterMode;
import io.kvrouter.preprocess.parse.ToolCallParserName;
import io.kvrouter.protocol.InvalidRequestException;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.routing.Migration;
import io.kvrouter.routing.RouteTarget;
import io.kvrouter.routing.Router;
import io.kvrouter.routing.Routers;
import io.kvrouter.testing.FakeRequestPlane;
import io.kvrouter.testing.Futures;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the preprocessor sends a worker for each kind of prompt, with real models' tokenizers and
 * templates: the token ids a worker receives are the test's evidence.
 */
class PreprocessorTest {
  private final Vertx vertx = Vertx.vertx();
  private final FakeRequestPlane plane = new FakeRequestPlane();

  /** Each model's files are loaded once per JVM (Gemma's tokenizer takes seconds). */
  private static ModelAssets assets(String model) {
    return TestModels.assets(model);
  }

  @AfterEach
  void close() throws Exception {
    Futures.result(vertx.close());
  }

  private Preprocessor preprocessor(String model, OutputParsers parsers) throws Exception {
    return preprocessor(model, parsers, 1, Migration.OFF);
  }

  /** Over workers w1 .. w{@code workers}, round robin, with {@code migration}. */
  private Preprocessor preprocessor(
      String model, OutputParsers parsers, int workers, Migration migration) throws Exception {
    List<RouteTarget> targets =
        java.util.stream.IntStream.rangeClosed(1, workers)
            .mapToObj(
                i -> new RouteTarget(new WorkerEndpoint("w" + i, "127.0.0.1", i, "generate"), 1000))
            .toList();
    Router router =
        Routers.create(
            RouterMode.ROUND_ROBIN,
            KvRouterConfig.DEFAULTS,
            16,
            targets,
            plane,
            Duration.ofSeconds(120),
            migration,
            vertx,
            new SimpleMeterRegistry());
    return new Preprocessor(vertx, assets(model), model, router, parsers);
  }

  /** The token ids the worker got for {@code prompt}. */
  private int[] sent(Preprocessor preprocessor, Prompt prompt, OutputOptions output)
      throws Exception {
    String id = "r" + plane.requestOf.size();
    Futures.result(
        preprocessor.generate(
            new GenerationRequest(id, prompt, 4, null, null, null, null, false, null, output)));
    return plane.requestOf.get(id).tokenIds();
  }

  @Test
  void completionText_getsTheBosTheTokenizerAdds_unlessTheRequestSaysNot() throws Exception {
    Preprocessor llama = preprocessor("llama3_1", OutputParsers.NONE);
    int[] withBos = sent(llama, new Prompt.Text("Hello", true), OutputOptions.TEXT);
    int[] without = sent(llama, new Prompt.Text("Hello", false), OutputOptions.TEXT);
    assertThat(withBos[0]).isEqualTo(128000);
    assertThat(Arrays.copyOfRange(withBos, 1, withBos.length)).isEqualTo(without);

    Preprocessor qwen = preprocessor("qwen3", OutputParsers.NONE);
    assertThat(sent(qwen, new Prompt.Text("Hello", true), OutputOptions.TEXT))
        .as("Qwen's tokenizer adds nothing")
        .isEqualTo(sent(qwen, new Prompt.Text("Hello", false), OutputOptions.TEXT));
  }

  @Test
  void tokenPrompts_goAsTheyAre_andIdsOutsideTheVocabularyAreRefused() throws Exception {
    Preprocessor qwen = preprocessor("qwen3", OutputParsers.NONE);
    assertThat(sent(qwen, new Prompt.Tokens(new int[] {9707, 11, 1879}), OutputOptions.TEXT))
        .containsExactly(9707, 11, 1879);
    Throwable refused =
        Futures.failure(
            qwen.generate(
                new GenerationRequest(
                    "bad",
                    new Prompt.Tokens(new int[] {5, 10_000_000}),
                    4,
                    null,
                    null,
                    null,
                    null,
                    false,
                    null,
                    OutputOptions.TEXT)));
    assertThat(refused)
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("Token id 10000000 in 'prompt' is outside the vocabulary of qwen3");
  }

  @Test
  void continueFinalMessage_endsThePromptInsideTheLastMessage() throws Exception {
    Preprocessor qwen = preprocessor("qwen3", OutputParsers.NONE);
    ModelAssets assets = assets("qwen3");
    Prompt.Chat chat =
        new Prompt.Chat(
            List.of(ChatMessage.user("Count to three."), ChatMessage.assistant("One, two, ")),
            false,
            true,
            null,
            Map.of("enable_thinking", false));
    String prompt = assets.tokenizer().decode(sent(qwen, chat, OutputOptions.TEXT));
    assertThat(prompt).endsWith("<|im_start|>assistant\n<think>\n\n</think>\n\nOne, two, ");
    assertThat(prompt)
        .doesNotContain(
            "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n" + "One, two, <|im_end|>");
  }

  /** transformers finds an empty (or blank) content at the very end and cuts nothing. */
  @Test
  void continueFinalMessage_withAnEmptyLastMessageKeepsTheWholeRender() throws Exception {
    Preprocessor qwen = preprocessor("qwen3", OutputParsers.NONE);
    ModelAssets assets = assets("qwen3");
    for (String blank : List.of("", "   ")) {
      List<ChatMessage> messages =
          List.of(ChatMessage.user("Hi"), new ChatMessage("assistant", blank));
      Prompt.Chat chat = new Prompt.Chat(messages, false, true, null, Map.of());
      String whole = assets.chatTemplate().render(messages, false, Map.of());
      assertThat(assets.tokenizer().decode(sent(qwen, chat, OutputOptions.TEXT)))
          .as("content <%s>", blank)
          .isEqualTo(whole);
    }
  }

  @Test
  void toolCallsWithoutAParser_areRefusedByName() throws Exception {
    Preprocessor qwen = preprocessor("qwen3", OutputParsers.NONE);
    Throwable refused =
        Futures.failure(
            qwen.generate(
                new GenerationRequest(
                    "t",
                    new Prompt.Chat(List.of(ChatMessage.user("x"))),
                    4,
                    null,
                    null,
                    null,
                    null,
                    false,
                    null,
                    new OutputOptions(true, false, false, true, true, null))));
    assertThat(refused)
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("--tool-call-parser");
    Preprocessor withParser =
        preprocessor("qwen3", new OutputParsers(null, ToolCallParserName.HERMES));
    assertThat(
            sent(
                withParser,
                new Prompt.Chat(List.of(ChatMessage.user("x"))),
                new OutputOptions(true, false, false, true, true, null)))
        .isNotEmpty();
  }

  @Test
  void contentParts_reachATemplateThatLoopsOverThemAsParts_andOthersAsOneString() throws Exception {
    ChatMessage parts =
        new ChatMessage(
            "user",
            new ChatMessage.Content.Parts(List.of(" Describe ", "the sea ")),
            null,
            List.of(),
            null,
            null);
    Prompt.Chat chat = new Prompt.Chat(List.of(parts));
    // Gemma 3 loops over content parts and trims each
    Preprocessor gemma = preprocessor("gemma3", OutputParsers.NONE);
    ModelAssets gemmaAssets = assets("gemma3");
    assertThat(gemmaAssets.tokenizer().decode(sent(gemma, chat, OutputOptions.TEXT)))
        .contains("<start_of_turn>user\nDescribethe sea<end_of_turn>");
    // Qwen 3 reads a string: the parts joined with newlines, as vLLM joins them
    Preprocessor qwen = preprocessor("qwen3", OutputParsers.NONE);
    ModelAssets qwenAssets = assets("qwen3");
    assertThat(qwenAssets.tokenizer().decode(sent(qwen, chat, OutputOptions.TEXT)))
        .contains("<|im_start|>user\n Describe \nthe sea <|im_end|>");
  }

  @Test
  void gptOssHarmonyAnswers_areDecodedWithTheirMarkers_andParsed() throws Exception {
    plane.set("w1", FakeRequestPlane.Behaviour.HOLD);
    Preprocessor gptOss =
        preprocessor(
            "gptoss",
            new OutputParsers(
                io.kvrouter.preprocess.parse.ReasoningParserName.GPT_OSS,
                ToolCallParserName.HARMONY));
    Generation generation =
        Futures.result(
            gptOss.generate(
                new GenerationRequest(
                    "h",
                    new Prompt.Chat(List.of(ChatMessage.user("Weather in Paris?"))),
                    64,
                    null,
                    null,
                    null,
                    null,
                    false,
                    null,
                    new OutputOptions(true, false, false, true, true, null))));
    StringBuilder content = new StringBuilder();
    StringBuilder reasoning = new StringBuilder();
    List<Delta.ToolCall> calls = new java.util.ArrayList<>();
    generation.subscribe(
        new Generation.Listener() {
          @Override
          public void onDelta(Delta delta, int newTokens) {
            content.append(delta.content());
            reasoning.append(delta.reasoning());
            calls.addAll(delta.toolCalls());
          }

          @Override
          public void onFinish(io.kvrouter.protocol.FinishReason reason, int completionTokens) {}

          @Override
          public void onError(Throwable error) {
            throw new AssertionError(error);
          }
        });
    ModelAssets assets = assets("gptoss");
    int[] answer =
        assets
            .tokenizer()
            .encode(
                "<|channel|>analysis<|message|>Need the weather tool.<|end|><|start|>assistant"
                    + "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
                    + "{\"city\":\"Paris\"}<|return|>");
    FakeRequestPlane.Held held = plane.held.get("h");
    for (int id : answer) {
      held.send(id);
    }
    held.answer();
    assertThat(reasoning).hasToString("Need the weather tool.");
    assertThat(content).hasToString("");
    assertThat(calls)
        .singleElement()
        .satisfies(
            call -> {
              assertThat(call.name()).isEqualTo("get_weather");
              assertThat(call.arguments()).isEqualTo("{\"city\": \"Paris\"}");
            });
  }

  /**
   * The detokenizer and the stop strings sit above the router, so a request that moves to another
   * worker mid-way is one token stream to them: a stop string begun on the first worker and ended
   * on the second is found, and the usage counts every token once.
   */
  @Test
  void aStopStringAcrossAMigration_isFound_andEveryTokenCountsOnce() throws Exception {
    plane.set("w1", FakeRequestPlane.Behaviour.HOLD).set("w2", FakeRequestPlane.Behaviour.HOLD);
    Preprocessor qwen = preprocessor("qwen3", OutputParsers.NONE, 2, new Migration(1, "qwen3"));
    int[] text = assets("qwen3").tokenizer().encode("The answer is forty two. Done.", false);
    int split = 4; // "The answer is forty" on w1, the rest on w2
    Generation generation =
        Futures.result(
            qwen.generate(
                new GenerationRequest(
                    "m",
                    new Prompt.Text("Q:", false),
                    64,
                    null,
                    List.of("forty two."),
                    null,
                    null,
                    false,
                    null,
                    OutputOptions.TEXT)));
    StringBuilder content = new StringBuilder();
    java.util.concurrent.CompletableFuture<Integer> finished =
        new java.util.concurrent.CompletableFuture<>();
    generation.subscribe(
        new Generation.Listener() {
          @Override
          public void onDelta(Delta delta, int newTokens) {
            content.append(delta.content());
          }

          @Override
          public void onFinish(io.kvrouter.protocol.FinishReason reason, int completionTokens) {
            assertThat(reason).isEqualTo(io.kvrouter.protocol.FinishReason.STOP);
            finished.complete(completionTokens);
          }

          @Override
          public void onError(Throwable error) {
            finished.completeExceptionally(error);
          }
        });
    for (int i = 0; i < split; i++) {
      plane.held.get("m").send(text[i]);
    }
    plane.held.get("m").fail(io.kvrouter.protocol.WorkerStreamException.disconnected("gone", null));
    assertThat(plane.sends).containsExactly("w1", "w2");
    int[] prompt = plane.sentRequests.get(0).tokenIds();
    assertThat(plane.sentRequests.get(1).tokenIds())
        .startsWith(prompt)
        .endsWith(Arrays.copyOf(text, split))
        .hasSize(prompt.length + split);
    for (int i = split; i < text.length; i++) {
      plane.held.get("m").send(text[i]);
    }

    int stopEnd = 6; // "forty two." ends with the 6th token: " two" and "."
    assertThat(finished.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(stopEnd);
    assertThat(content).hasToString("The answer is ");
  }
}
