package io.kvrouter.frontend.openai;

import com.fasterxml.jackson.core.JsonGenerator;
import io.kvrouter.preprocess.Delta;
import io.kvrouter.protocol.FinishReason;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON shapes of one OpenAI API: streamed chunks and the whole (non-streamed) response. Chat
 * chunks carry a {@code delta}; completion chunks carry {@code text}. Each shape is written field
 * by field to a streaming generator ({@link JsonBytes}), since a chunk goes out per token.
 */
public enum ResponseFormat {
  CHAT("chatcmpl-", "chat.completion", "chat.completion.chunk"),
  COMPLETION("cmpl-", "text_completion", "text_completion");

  private final String idPrefix;
  private final String object;
  private final String chunkObject;

  ResponseFormat(String idPrefix, String object, String chunkObject) {
    this.idPrefix = idPrefix;
    this.object = object;
    this.chunkObject = chunkObject;
  }

  /** Identity shared by every chunk of one response. */
  public record Header(String id, long created, String model) {}

  public Header header(String requestId, long createdEpochSeconds, String model) {
    return new Header(idPrefix + requestId, createdEpochSeconds, model);
  }

  /**
   * One streamed chunk. The first chat chunk also names the assistant role; {@code finishReason} is
   * {@code null} until the last. A chat delta carries {@code content}, {@code reasoning_content}
   * and {@code tool_calls} (each call whole, with its index) when it has them; a completion chunk
   * carries the content as {@code text}.
   */
  public void chunk(
      JsonGenerator json,
      Header header,
      int index,
      Delta delta,
      boolean first,
      String finishReason,
      int textOffset)
      throws IOException {
    base(json, header, chunkObject);
    json.writeArrayFieldStart("choices");
    json.writeStartObject();
    json.writeNumberField("index", index);
    if (this == CHAT) {
      json.writeObjectFieldStart("delta");
      if (first) {
        json.writeStringField("role", "assistant");
      }
      if (!delta.content().isEmpty() || (first && delta.isEmpty())) {
        json.writeStringField("content", delta.content());
      }
      writeOutput(json, delta.reasoning(), delta.toolCalls(), true);
      json.writeEndObject();
    } else {
      json.writeStringField("text", delta.content());
    }
    writeLogprobs(json, delta.logprobs(), textOffset);
    json.writeStringField("finish_reason", finishReason);
    json.writeEndObject();
    json.writeEndArray();
    json.writeEndObject();
  }

  /**
   * The finish reason a client sees: {@code tool_calls} when the model ended its turn by calling
   * tools, else the generation's own.
   */
  public static String finishReason(FinishReason reason, boolean calledTools) {
    String name = reason.openAiName();
    return calledTools && name.equals("stop") ? "tool_calls" : name;
  }

  /** The last streamed chunk when usage was asked for: no choices, only usage. */
  public void usageChunk(JsonGenerator json, Header header, int promptTokens, int completionTokens)
      throws IOException {
    base(json, header, chunkObject);
    json.writeArrayFieldStart("choices");
    json.writeEndArray();
    writeUsage(json, promptTokens, completionTokens);
    json.writeEndObject();
  }

  /** One whole choice of a non-streamed response. */
  public record Choice(
      String content,
      String reasoning,
      List<Delta.ToolCall> toolCalls,
      List<Delta.TokenLogprob> logprobs,
      String finishReason) {}

  /**
   * The whole response of a non-streamed request, its choices indexed in order. A chat message
   * whose answer is only tool calls (and the whitespace the model wrote around them) has {@code
   * content} null, as OpenAI sends it.
   */
  public void full(
      JsonGenerator json,
      Header header,
      List<Choice> choices,
      int promptTokens,
      int completionTokens)
      throws IOException {
    base(json, header, object);
    json.writeArrayFieldStart("choices");
    for (int i = 0; i < choices.size(); i++) {
      Choice c = choices.get(i);
      json.writeStartObject();
      json.writeNumberField("index", i);
      if (this == CHAT) {
        json.writeObjectFieldStart("message");
        json.writeStringField("role", "assistant");
        json.writeStringField(
            "content", c.content().isBlank() && !c.toolCalls().isEmpty() ? null : c.content());
        writeOutput(json, c.reasoning(), c.toolCalls(), false);
        json.writeEndObject();
      } else {
        json.writeStringField("text", c.content());
      }
      writeLogprobs(json, c.logprobs(), 0);
      json.writeStringField("finish_reason", c.finishReason());
      json.writeEndObject();
    }
    json.writeEndArray();
    writeUsage(json, promptTokens, completionTokens);
    json.writeEndObject();
  }

  /**
   * The {@code logprobs} of a choice, null when the worker sent none. Chat: {@code {"content":
   * [{token, logprob, bytes, top_logprobs: [{token, logprob, bytes}]}]}}. Completions: {@code
   * {tokens, token_logprobs, top_logprobs: [{token: logprob}], text_offset}}, the offsets counted
   * from {@code textOffset}, where these tokens' text starts in the choice's text.
   */
  private void writeLogprobs(JsonGenerator json, List<Delta.TokenLogprob> tokens, int textOffset)
      throws IOException {
    if (tokens.isEmpty()) {
      json.writeNullField("logprobs");
      return;
    }
    json.writeObjectFieldStart("logprobs");
    if (this == CHAT) {
      json.writeArrayFieldStart("content");
      for (Delta.TokenLogprob token : tokens) {
        json.writeStartObject();
        writeTokenEntry(json, token.token(), token.logprob());
        json.writeArrayFieldStart("top_logprobs");
        for (Delta.Alternative alt : token.top()) {
          json.writeStartObject();
          writeTokenEntry(json, alt.token(), alt.logprob());
          json.writeEndObject();
        }
        json.writeEndArray();
        json.writeEndObject();
      }
      json.writeEndArray();
    } else {
      json.writeArrayFieldStart("tokens");
      for (Delta.TokenLogprob token : tokens) {
        json.writeString(token.token());
      }
      json.writeEndArray();
      json.writeArrayFieldStart("token_logprobs");
      for (Delta.TokenLogprob token : tokens) {
        json.writeNumber(token.logprob());
      }
      json.writeEndArray();
      json.writeArrayFieldStart("top_logprobs");
      for (Delta.TokenLogprob token : tokens) {
        // a JSON object per position: alternatives that decode to the same text (byte-fallback
        // tokens all read as U+FFFD) share one key, the last one's value at the first one's place
        Map<String, Double> top = new LinkedHashMap<>();
        token.top().forEach(alt -> top.put(alt.token(), alt.logprob()));
        json.writeStartObject();
        for (Map.Entry<String, Double> alt : top.entrySet()) {
          json.writeNumberField(alt.getKey(), alt.getValue());
        }
        json.writeEndObject();
      }
      json.writeEndArray();
      json.writeArrayFieldStart("text_offset");
      int offset = textOffset;
      for (Delta.TokenLogprob token : tokens) {
        json.writeNumber(offset);
        offset += token.token().length();
      }
      json.writeEndArray();
    }
    json.writeEndObject();
  }

  private static void writeTokenEntry(JsonGenerator json, String token, double logprob)
      throws IOException {
    json.writeStringField("token", token);
    json.writeNumberField("logprob", logprob);
    json.writeArrayFieldStart("bytes");
    for (byte b : token.getBytes(StandardCharsets.UTF_8)) {
      json.writeNumber(b & 0xff);
    }
    json.writeEndArray();
  }

  /** Reasoning and tool calls; streamed calls carry their {@code index}, whole ones do not. */
  private static void writeOutput(
      JsonGenerator json, String reasoning, List<Delta.ToolCall> calls, boolean streamed)
      throws IOException {
    if (!reasoning.isEmpty()) {
      json.writeStringField("reasoning_content", reasoning);
    }
    if (calls.isEmpty()) {
      return;
    }
    json.writeArrayFieldStart("tool_calls");
    for (Delta.ToolCall call : calls) {
      json.writeStartObject();
      if (streamed) {
        json.writeNumberField("index", call.index());
      }
      json.writeStringField("id", call.id());
      json.writeStringField("type", "function");
      json.writeObjectFieldStart("function");
      json.writeStringField("name", call.name());
      json.writeStringField("arguments", call.arguments());
      json.writeEndObject();
      json.writeEndObject();
    }
    json.writeEndArray();
  }

  private static void writeUsage(JsonGenerator json, int promptTokens, int completionTokens)
      throws IOException {
    json.writeObjectFieldStart("usage");
    json.writeNumberField("prompt_tokens", promptTokens);
    json.writeNumberField("completion_tokens", completionTokens);
    json.writeNumberField("total_tokens", promptTokens + completionTokens);
    json.writeEndObject();
  }

  /** Opens the document with the fields every response and chunk starts with. */
  private static void base(JsonGenerator json, Header header, String object) throws IOException {
    json.writeStartObject();
    json.writeStringField("id", header.id());
    json.writeStringField("object", object);
    json.writeNumberField("created", header.created());
    json.writeStringField("model", header.model());
  }
}
