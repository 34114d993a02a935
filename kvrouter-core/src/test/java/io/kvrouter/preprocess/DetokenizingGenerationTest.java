package io.kvrouter.preprocess;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.preprocess.parse.OutputParser;
import io.kvrouter.preprocess.parse.ReasoningParserName;
import io.kvrouter.preprocess.parse.ToolCallParserName;
import io.kvrouter.preprocess.tokenizer.Tokenizer;
import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.ResponseStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DetokenizingGenerationTest {

  /** A worker stream that delivers the given outputs when subscribed and records cancel(). */
  private static final class ScriptedStream implements ResponseStream {
    private final List<EngineOutput> outputs;
    boolean cancelled;

    ScriptedStream(List<EngineOutput> outputs) {
      this.outputs = outputs;
    }

    @Override
    public void subscribe(Subscriber subscriber) {
      for (EngineOutput output : outputs) {
        subscriber.onOutput(output);
      }
      subscriber.onComplete();
    }

    @Override
    public void pause() {}

    @Override
    public void resume() {}

    @Override
    public void cancel() {
      cancelled = true;
    }
  }

  private static final class Recorder implements Generation.Listener {
    final List<String> deltas = new ArrayList<>();
    final StringBuilder reasoning = new StringBuilder();
    final List<Delta.ToolCall> toolCalls = new ArrayList<>();
    int tokens;
    FinishReason finish;
    int completionTokens = -1;

    @Override
    public void onDelta(Delta delta, int newTokens) {
      deltas.add(delta.content());
      reasoning.append(delta.reasoning());
      toolCalls.addAll(delta.toolCalls());
      tokens += newTokens;
    }

    @Override
    public void onFinish(FinishReason reason, int completionTokens) {
      this.finish = reason;
      this.completionTokens = completionTokens;
    }

    Throwable error;

    @Override
    public void onError(Throwable error) {
      this.error = error;
    }

    String text() {
      return String.join("", deltas);
    }
  }

  /** One output per UTF-8 byte of {@code text} (the demo tokenizer), the last with {@code end}. */
  private static List<EngineOutput> bytes(String text, FinishReason end) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    List<EngineOutput> outputs = new ArrayList<>();
    for (int i = 0; i < bytes.length; i++) {
      int id = bytes[i] & 0xff;
      outputs.add(
          i == bytes.length - 1 && end != null
              ? EngineOutput.finished(end, id)
              : EngineOutput.tokens(id));
    }
    return outputs;
  }

  private static Recorder run(
      ScriptedStream stream, Integer maxTokens, List<String> stop, List<Integer> stopIds) {
    return run(stream, maxTokens, stop, stopIds, null, new Recorder());
  }

  private static Recorder run(
      ScriptedStream stream,
      Integer maxTokens,
      List<String> stop,
      List<Integer> stopIds,
      Integer minTokens,
      Recorder recorder) {
    return run(stream, maxTokens, stop, stopIds, minTokens, OutputOptions.TEXT, null, recorder);
  }

  private static Recorder run(
      ScriptedStream stream,
      Integer maxTokens,
      List<String> stop,
      List<Integer> stopIds,
      Integer minTokens,
      OutputOptions output,
      OutputParser parser,
      Recorder recorder) {
    GenerationRequest request =
        new GenerationRequest(
            "r",
            new Prompt.Text("p"),
            maxTokens,
            null,
            stop,
            stopIds,
            minTokens,
            false,
            null,
            output);
    new DetokenizingGeneration(
            stream,
            Tokenizer.bytes(),
            request,
            1,
            maxTokens == null ? Integer.MAX_VALUE : maxTokens,
            List.of((int) '$'),
            "",
            true,
            parser)
        .subscribe(recorder);
    return recorder;
  }

  @Test
  void multiByteCharacters_neverArriveBroken() {
    ScriptedStream stream = new ScriptedStream(bytes("héllo 你好 🙂!", FinishReason.EOS));
    Recorder result = run(stream, null, null, null);
    assertThat(result.text()).isEqualTo("héllo 你好 🙂!");
    assertThat(result.deltas).noneMatch(d -> d.contains("\uFFFD"));
    assertThat(result.finish).isEqualTo(FinishReason.EOS);
    assertThat(result.completionTokens)
        .isEqualTo("héllo 你好 🙂!".getBytes(StandardCharsets.UTF_8).length);
    assertThat(stream.cancelled).isFalse();
  }

  @Test
  void stopString_splitAcrossTokens_endsTheGenerationAndStopsTheWorker() {
    ScriptedStream stream = new ScriptedStream(bytes("one two STOP three", null));
    Recorder result = run(stream, null, List.of("STOP"), null);
    assertThat(result.text()).isEqualTo("one two ");
    assertThat(result.finish).isEqualTo(FinishReason.STOP);
    assertThat(stream.cancelled).isTrue();
  }

  @Test
  void includeStopString_keepsTheMatchedStopAtTheEnd() {
    OutputOptions keep = new OutputOptions(true, true, false, false, false, null);
    Recorder result =
        run(
            new ScriptedStream(bytes("one two STOP three", null)),
            null,
            List.of("STOP", "TW"),
            null,
            null,
            keep,
            null,
            new Recorder());
    assertThat(result.text()).isEqualTo("one two STOP");
    assertThat(result.finish).isEqualTo(FinishReason.STOP);
  }

  @Test
  void aParser_splitsReasoningAndToolCallsOutOfTheStream_whateverTheTokenCuts() {
    String output =
        "<think>weigh it</think>Checking.<tool_call>\n{\"name\": \"f\", \"arguments\":"
            + " {\"x\": \"é\"}}\n</tool_call>";
    OutputParser parser =
        OutputParser.of(ReasoningParserName.QWEN3, ToolCallParserName.HERMES, "<|im_start|>");
    Recorder result =
        run(
            new ScriptedStream(bytes(output, FinishReason.EOS)),
            null,
            null,
            null,
            null,
            new OutputOptions(true, false, false, true, true, null),
            parser,
            new Recorder());
    assertThat(result.reasoning).hasToString("weigh it");
    assertThat(result.text()).isEqualTo("Checking.");
    assertThat(result.toolCalls)
        .singleElement()
        .satisfies(
            call -> {
              assertThat(call.index()).isZero();
              assertThat(call.name()).isEqualTo("f");
              assertThat(call.arguments()).isEqualTo("{\"x\": \"é\"}");
              assertThat(call.id()).startsWith("chatcmpl-tool-");
            });
    assertThat(result.finish).isEqualTo(FinishReason.EOS);
  }

  @Test
  void anEosTokenFromTheWorker_endsTheTextWithoutShowingIt() {
    // '$' is this test's end-of-sequence id
    Recorder result = run(new ScriptedStream(bytes("done$", FinishReason.EOS)), null, null, null);
    assertThat(result.text()).isEqualTo("done");
    assertThat(result.finish).isEqualTo(FinishReason.EOS);
  }

  @Test
  void heldBackPrefix_isReleasedWhenItIsNotAStop() {
    ScriptedStream stream = new ScriptedStream(bytes("abc ST", FinishReason.LENGTH));
    Recorder result = run(stream, null, List.of("STOP"), null);
    assertThat(result.text()).isEqualTo("abc ST");
    assertThat(result.finish).isEqualTo(FinishReason.LENGTH);
  }

  @Test
  void maxTokens_isEnforcedEvenIfTheWorkerOvershoots() {
    ScriptedStream stream = new ScriptedStream(bytes("abcdefghij", FinishReason.LENGTH));
    Recorder result = run(stream, 4, null, null);
    assertThat(result.text()).isEqualTo("abcd");
    assertThat(result.completionTokens).isEqualTo(4);
    assertThat(result.finish).isEqualTo(FinishReason.LENGTH);
    assertThat(stream.cancelled).isTrue();
  }

  @Test
  void minTokens_holdsOffStopIdsAndStopStrings() {
    ScriptedStream stream = new ScriptedStream(bytes("a b c d", FinishReason.EOS));
    Recorder byId = run(stream, null, null, List.of((int) ' '), 3, new Recorder());
    assertThat(byId.text()).isEqualTo("a b");
    assertThat(byId.finish).isEqualTo(FinishReason.STOP);

    Recorder byString =
        run(
            new ScriptedStream(bytes("xx yy xx", FinishReason.EOS)),
            null,
            List.of("xx"),
            null,
            3,
            new Recorder());
    assertThat(byString.text()).isEqualTo("xx yy ");
  }

  @Test
  void tokenOutsideTheVocabulary_endsWithAnErrorAndStopsTheWorker() {
    ScriptedStream stream =
        new ScriptedStream(List.of(EngineOutput.tokens('o', 'k'), EngineOutput.tokens(999)));
    Recorder result = run(stream, null, null, null);
    assertThat(result.error)
        .isInstanceOf(io.kvrouter.protocol.WorkerStreamException.class)
        .hasMessageContaining("cannot decode");
    assertThat(result.finish).isNull();
    assertThat(stream.cancelled).isTrue();
  }

  @Test
  void stopTokenId_endsBeforeTheToken() {
    ScriptedStream stream = new ScriptedStream(bytes("ab cd", FinishReason.EOS));
    Recorder result = run(stream, null, null, List.of((int) ' '));
    assertThat(result.text()).isEqualTo("ab");
    assertThat(result.finish).isEqualTo(FinishReason.STOP);
  }
}
