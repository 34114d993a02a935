package io.kvrouter.frontend.openai;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.preprocess.Delta;
import io.vertx.core.buffer.Buffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bytes of each response shape, field order and escaping included. */
class ResponseFormatTest {
  private static final ResponseFormat.Header CHAT =
      ResponseFormat.CHAT.header("r1", 1700000000, "m\"odel");
  private static final ResponseFormat.Header COMPLETION =
      ResponseFormat.COMPLETION.header("r2", 1700000001, "m");

  @Test
  void theFirstChatChunkNamesTheRoleAndEscapesText() {
    String json =
        write(
            g ->
                ResponseFormat.CHAT.chunk(
                    g, CHAT, 0, Delta.content("a\"b\\c\n\u0001é😀"), true, null, 0));

    assertThat(json)
        .isEqualTo(
            "{\"id\":\"chatcmpl-r1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
                + "\"model\":\"m\\\"odel\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
                + "\"content\":\"a\\\"b\\\\c\\n\\u0001é😀\"},\"logprobs\":null,\"finish_reason\":null}]}");
  }

  @Test
  void anEmptyLastChatChunkCarriesOnlyTheFinishReason() {
    assertThat(
            write(g -> ResponseFormat.CHAT.chunk(g, CHAT, 1, Delta.content(""), false, "stop", 0)))
        .endsWith(
            "\"choices\":[{\"index\":1,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"stop\"}]}");
    assertThat(write(g -> ResponseFormat.CHAT.chunk(g, CHAT, 0, Delta.content(""), true, null, 0)))
        .contains("\"delta\":{\"role\":\"assistant\",\"content\":\"\"}");
  }

  @Test
  void reasoningToolCallsAndLogprobsOfAChatChunk() {
    Delta delta =
        new Delta(
                "",
                "think",
                List.of(new Delta.ToolCall(0, "call_1", "get", "{\"a\":1}")),
                List.of())
            .withLogprobs(
                List.of(
                    new Delta.TokenLogprob(
                        "é", -0.5, List.of(new Delta.Alternative("x", Double.NEGATIVE_INFINITY)))));

    assertThat(write(g -> ResponseFormat.CHAT.chunk(g, CHAT, 0, delta, false, null, 0)))
        .endsWith(
            "\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"think\",\"tool_calls\":"
                + "[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"get\","
                + "\"arguments\":\"{\\\"a\\\":1}\"}}]},\"logprobs\":{\"content\":[{\"token\":\"é\","
                + "\"logprob\":-0.5,\"bytes\":[195,169],\"top_logprobs\":[{\"token\":\"x\","
                + "\"logprob\":\"-Infinity\",\"bytes\":[120]}]}]},\"finish_reason\":null}]}");
  }

  @Test
  void completionChunksCarryTextAndLogprobsWithOffsets() {
    Delta delta =
        Delta.content("ab")
            .withLogprobs(
                List.of(
                    new Delta.TokenLogprob("a", -1.0, List.of(new Delta.Alternative("a", -1.0))),
                    new Delta.TokenLogprob("b", -2.0, List.of())));

    assertThat(write(g -> ResponseFormat.COMPLETION.chunk(g, COMPLETION, 0, delta, true, null, 5)))
        .isEqualTo(
            "{\"id\":\"cmpl-r2\",\"object\":\"text_completion\",\"created\":1700000001,\"model\":\"m\","
                + "\"choices\":[{\"index\":0,\"text\":\"ab\",\"logprobs\":{\"tokens\":[\"a\",\"b\"],"
                + "\"token_logprobs\":[-1.0,-2.0],\"top_logprobs\":[{\"a\":-1.0},{}],"
                + "\"text_offset\":[5,6]},\"finish_reason\":null}]}");
  }

  @Test
  void completionAlternativesWithTheSameTextShareOneKey() {
    Delta delta =
        Delta.content("\ufffd")
            .withLogprobs(
                List.of(
                    new Delta.TokenLogprob(
                        "\ufffd",
                        -1.0,
                        List.of(
                            new Delta.Alternative("\ufffd", -1.5),
                            new Delta.Alternative("a", -2.0),
                            new Delta.Alternative("\ufffd", -2.5)))));

    assertThat(write(g -> ResponseFormat.COMPLETION.chunk(g, COMPLETION, 0, delta, false, null, 0)))
        .contains("\"top_logprobs\":[{\"\ufffd\":-2.5,\"a\":-2.0}]");
  }

  @Test
  void aLoneSurrogateInTextIsEscaped() {
    assertThat(
            write(
                g ->
                    ResponseFormat.CHAT.chunk(
                        g, CHAT, 0, Delta.content("x\udc80 y"), false, null, 0)))
        .contains("\"content\":\"x\\uDC80 y\"");
  }

  @Test
  void theUsageChunkHasNoChoices() {
    assertThat(write(g -> ResponseFormat.CHAT.usageChunk(g, CHAT, 3, 4)))
        .endsWith(
            "\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4,"
                + "\"total_tokens\":7}}");
  }

  @Test
  void aWholeChatAnswerOfOnlyToolCallsHasNullContent() {
    ResponseFormat.Choice calls =
        new ResponseFormat.Choice(
            " \n", "", List.of(new Delta.ToolCall(0, "c", "f", "{}")), List.of(), "tool_calls");
    ResponseFormat.Choice text =
        new ResponseFormat.Choice("hi", "why", List.of(), List.of(), "stop");

    assertThat(write(g -> ResponseFormat.CHAT.full(g, CHAT, List.of(calls, text), 1, 2)))
        .isEqualTo(
            "{\"id\":\"chatcmpl-r1\",\"object\":\"chat.completion\",\"created\":1700000000,"
                + "\"model\":\"m\\\"odel\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                + "\"content\":null,\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\",\"function\":"
                + "{\"name\":\"f\",\"arguments\":\"{}\"}}]},\"logprobs\":null,\"finish_reason\":"
                + "\"tool_calls\"},{\"index\":1,\"message\":{\"role\":\"assistant\",\"content\":\"hi\","
                + "\"reasoning_content\":\"why\"},\"logprobs\":null,\"finish_reason\":\"stop\"}],"
                + "\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2,\"total_tokens\":3}}");
  }

  @Test
  void aWholeCompletionCarriesText() {
    ResponseFormat.Choice text = new ResponseFormat.Choice("x", "", List.of(), List.of(), "length");

    assertThat(write(g -> ResponseFormat.COMPLETION.full(g, COMPLETION, List.of(text), 1, 1)))
        .contains(
            "\"object\":\"text_completion\"",
            "\"choices\":[{\"index\":0,\"text\":\"x\",\"logprobs\":null,\"finish_reason\":\"length\"}]");
  }

  @Test
  void documentsAppendToWhatTheBufferHolds() {
    Buffer out = Buffer.buffer("data: ");
    JsonBytes.append(out, g -> ResponseFormat.CHAT.usageChunk(g, CHAT, 0, 0));
    assertThat(out.toString()).startsWith("data: {\"id\":\"chatcmpl-r1\"").endsWith("}}");
  }

  private static String write(JsonBytes.Document document) {
    return JsonBytes.of(document).toString();
  }
}
