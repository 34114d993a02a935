package io.kvrouter.preprocess.parse;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OutputParserTest {

  /** What a parser made of a whole output, merged: content, reasoning and calls. */
  private record Parsed(String content, String reasoning, List<OutputPiece.ToolCall> calls) {}

  /** Feeds {@code output} cut into pieces of 1 to {@code maxCut} characters. */
  private static Parsed parse(OutputParser parser, String output, int maxCut, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<OutputPiece> pieces = new ArrayList<>();
    for (int at = 0; at < output.length(); ) {
      int end = Math.min(output.length(), at + 1 + random.nextInt(maxCut));
      pieces.addAll(parser.accept(output.substring(at, end)));
      at = end;
    }
    pieces.addAll(parser.finish());
    StringBuilder content = new StringBuilder();
    StringBuilder reasoning = new StringBuilder();
    List<OutputPiece.ToolCall> calls = new ArrayList<>();
    for (OutputPiece piece : pieces) {
      if (piece instanceof OutputPiece.Content c) {
        content.append(c.text());
      } else if (piece instanceof OutputPiece.Reasoning r) {
        reasoning.append(r.text());
      } else {
        calls.add((OutputPiece.ToolCall) piece);
      }
    }
    return new Parsed(content.toString(), reasoning.toString(), calls);
  }

  private static Parsed parse(
      ReasoningParserName reasoning, ToolCallParserName tools, String prompt, String output) {
    Parsed whole = parse(OutputParser.of(reasoning, tools, prompt), output, output.length(), 1);
    for (int cut : new int[] {1, 2, 3, 7}) {
      for (long seed = 0; seed < 5; seed++) {
        assertThat(parse(OutputParser.of(reasoning, tools, prompt), output, cut, seed))
            .as("cut into pieces of at most %d characters (seed %d)", cut, seed)
            .isEqualTo(whole);
      }
    }
    return whole;
  }

  @Test
  void thinkBlock_becomesReasoning_andTheRestContent() {
    Parsed p =
        parse(
            ReasoningParserName.QWEN3,
            null,
            "<|im_start|>assistant\n",
            "<think>\nLet me see.\n</think>\n\nParis.");
    assertThat(p.reasoning()).isEqualTo("\nLet me see.\n");
    assertThat(p.content()).isEqualTo("\n\nParis.");
  }

  @Test
  void aPromptThatOpensTheBlock_makesTheOutputStartAsReasoning() {
    Parsed p =
        parse(
            ReasoningParserName.DEEPSEEK_R1, null, "<｜Assistant｜><think>\n", "Hmm, 2+2.</think>4");
    assertThat(p.reasoning()).isEqualTo("Hmm, 2+2.");
    assertThat(p.content()).isEqualTo("4");
  }

  @Test
  void aPromptThatClosesAnEmptyBlock_leavesTheOutputContent() {
    // Qwen3 with enable_thinking=false
    Parsed p =
        parse(
            ReasoningParserName.QWEN3,
            null,
            "<|im_start|>assistant\n<think>\n\n</think>\n\n",
            "Just <b>Paris</b> <thin");
    assertThat(p.reasoning()).isEmpty();
    assertThat(p.content()).isEqualTo("Just <b>Paris</b> <thin");
  }

  @Test
  void anUnclosedThinkBlock_isAllReasoning() {
    Parsed p = parse(ReasoningParserName.BASIC, null, "", "<think>still going </thi");
    assertThat(p.reasoning()).isEqualTo("still going </thi");
    assertThat(p.content()).isEmpty();
  }

  @Test
  void hermes_readsEachToolCallBlock_afterContentAndReasoning() {
    Parsed p =
        parse(
            ReasoningParserName.QWEN3,
            ToolCallParserName.HERMES,
            "",
            "<think>need weather</think>Let me check.\n<tool_call>\n{\"name\": \"get_weather\","
                + " \"arguments\": {\"city\": \"東京\", \"days\": 2}}\n</tool_call>\n<tool_call>\n"
                + "{\"name\":\"get_time\",\"arguments\":{}}\n</tool_call>");
    assertThat(p.reasoning()).isEqualTo("need weather");
    assertThat(p.content()).isEqualTo("Let me check.\n");
    assertThat(p.calls())
        .containsExactly(
            new OutputPiece.ToolCall("get_weather", "{\"city\": \"東京\", \"days\": 2}"),
            new OutputPiece.ToolCall("get_time", "{}"));
  }

  @Test
  void hermes_withBrokenJson_givesTheTextBackAsContent() {
    String output = "Sure <tool_call>{\"name\": \"f\", \"arguments\": {oops}</tool_call>";
    Parsed p = parse(null, ToolCallParserName.HERMES, "", output);
    assertThat(p.calls()).isEmpty();
    assertThat(p.content()).isEqualTo(output);
  }

  @Test
  void hermes_anOutputCutInsideTheLastBlock_stillYieldsItsCall() {
    Parsed p =
        parse(
            null,
            ToolCallParserName.HERMES,
            "",
            "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": [1, 2.5, null, true]}}\n");
    assertThat(p.calls())
        .containsExactly(new OutputPiece.ToolCall("f", "{\"a\": [1, 2.5, null, true]}"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}",
        "  <|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}",
        "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}"
      })
  void llama3Json_readsAnAnswerThatIsACall(String output) {
    Parsed p = parse(null, ToolCallParserName.LLAMA3_JSON, "", output);
    assertThat(p.calls())
        .containsExactly(new OutputPiece.ToolCall("get_weather", "{\"city\": \"Paris\"}"));
    assertThat(p.content()).isBlank();
  }

  @Test
  void llama3Json_readsSeveralCallsSeparatedBySemicolons() {
    Parsed p =
        parse(
            null,
            ToolCallParserName.LLAMA3_JSON,
            "",
            "{\"name\": \"a\", \"parameters\": {}}; {\"name\": \"b\", \"parameters\": {\"x\": 1}}");
    assertThat(p.calls())
        .containsExactly(
            new OutputPiece.ToolCall("a", "{}"), new OutputPiece.ToolCall("b", "{\"x\": 1}"));
  }

  @Test
  void llama3Json_leavesProseAndJsonThatIsNotACallAsContent() {
    assertThat(parse(null, ToolCallParserName.LLAMA3_JSON, "", "The answer is {\"a\": 1}."))
        .isEqualTo(new Parsed("The answer is {\"a\": 1}.", "", List.of()));
    assertThat(parse(null, ToolCallParserName.LLAMA3_JSON, "", "{\"a\": 1}"))
        .isEqualTo(new Parsed("{\"a\": 1}", "", List.of()));
  }

  @Test
  void mistral_readsTheArrayAfterItsToken() {
    Parsed p =
        parse(
            null,
            ToolCallParserName.MISTRAL,
            "",
            "[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {\"q\": \"x\"}},"
                + " {\"name\": \"g\", \"arguments\": {}}]");
    assertThat(p.calls())
        .containsExactly(
            new OutputPiece.ToolCall("f", "{\"q\": \"x\"}"), new OutputPiece.ToolCall("g", "{}"));
    assertThat(ToolCallParserName.MISTRAL.needsSpecialTokens()).isTrue();
    assertThat(ToolCallParserName.HERMES.needsSpecialTokens()).isFalse();
  }

  @Test
  void deepSeekV3_readsItsCallBlocks() {
    Parsed p =
        parse(
            null,
            ToolCallParserName.DEEPSEEK_V3,
            "",
            "Checking.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n"
                + "```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜>\n"
                + "<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n{}\n```"
                + "<｜tool▁call▁end｜><｜tool▁calls▁end｜>");
    assertThat(p.content()).isEqualTo("Checking.");
    assertThat(p.calls())
        .containsExactly(
            new OutputPiece.ToolCall("get_weather", "{\"city\": \"Paris\"}"),
            new OutputPiece.ToolCall("get_time", "{}"));
  }

  @Test
  void harmony_readsAnalysisAsReasoning_callsAsToolCalls_andFinalAsContent() {
    Parsed p =
        parse(
            ReasoningParserName.GPT_OSS,
            ToolCallParserName.HARMONY,
            "<|start|>assistant",
            "<|channel|>analysis<|message|>User wants weather.<|end|>"
                + "<|start|>assistant<|channel|>commentary to=functions.get_weather"
                + " <|constrain|>json<|message|>{\"city\":\"Paris\"}<|call|>");
    assertThat(p.reasoning()).isEqualTo("User wants weather.");
    assertThat(p.content()).isEmpty();
    assertThat(p.calls())
        .containsExactly(new OutputPiece.ToolCall("get_weather", "{\"city\": \"Paris\"}"));

    Parsed answer =
        parse(
            ReasoningParserName.GPT_OSS,
            ToolCallParserName.HARMONY,
            "",
            "<|channel|>analysis<|message|>Easy.<|end|><|start|>assistant"
                + "<|channel|>final<|message|>It is 22 °C.<|return|>");
    assertThat(answer).isEqualTo(new Parsed("It is 22 °C.", "Easy.", List.of()));

    // the recipient may sit in the role part of the header, as gpt-oss's template writes it
    Parsed roleRecipient =
        parse(
            null,
            ToolCallParserName.HARMONY,
            "",
            "<|start|>assistant to=functions.f<|channel|>commentary json<|message|>{}<|call|>");
    assertThat(roleRecipient.calls()).containsExactly(new OutputPiece.ToolCall("f", "{}"));
    assertThat(ToolCallParserName.HARMONY.needsSpecialTokens()).isTrue();
    assertThat(ReasoningParserName.GPT_OSS.needsSpecialTokens()).isTrue();
  }

  @Test
  void names_areDynamosAndVllms() {
    assertThat(ReasoningParserName.names()).isEqualTo("basic, deepseek_r1, qwen3, gpt_oss");
    assertThat(ToolCallParserName.names())
        .isEqualTo("hermes, llama3_json, mistral, deepseek_v3, harmony");
    assertThat(ToolCallParserName.of("llama3_json")).contains(ToolCallParserName.LLAMA3_JSON);
    assertThat(ReasoningParserName.of("nope")).isEmpty();
  }
}
