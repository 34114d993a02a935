package io.kvrouter.frontend.openai;

import io.kvrouter.preprocess.Delta;
import io.kvrouter.protocol.FinishReason;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The JSON shapes of one OpenAI API: streamed chunks and the whole (non-streamed) response. Chat
 * chunks carry a {@code delta}; completion chunks carry {@code text}.
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
  public JsonObject chunk(
      Header header, int index, Delta delta, boolean first, String finishReason, int textOffset) {
    JsonObject choice = new JsonObject().put("index", index);
    if (this == CHAT) {
      JsonObject message = new JsonObject();
      if (first) {
        message.put("role", "assistant");
      }
      if (!delta.content().isEmpty() || (first && delta.isEmpty())) {
        message.put("content", delta.content());
      }
      putOutput(message, delta.reasoning(), delta.toolCalls(), true);
      choice.put("delta", message);
    } else {
      choice.put("text", delta.content());
    }
    choice.put("logprobs", logprobs(delta.logprobs(), textOffset));
    choice.put("finish_reason", finishReason);
    return base(header, chunkObject).put("choices", new JsonArray().add(choice));
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
  public JsonObject usageChunk(Header header, JsonObject usage) {
    return base(header, chunkObject).put("choices", new JsonArray()).put("usage", usage);
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
  public JsonObject full(Header header, List<Choice> choices, JsonObject usage) {
    JsonArray array = new JsonArray();
    for (int i = 0; i < choices.size(); i++) {
      Choice c = choices.get(i);
      JsonObject choice = new JsonObject().put("index", i);
      if (this == CHAT) {
        JsonObject message = new JsonObject().put("role", "assistant");
        message.put(
            "content", c.content().isBlank() && !c.toolCalls().isEmpty() ? null : c.content());
        putOutput(message, c.reasoning(), c.toolCalls(), false);
        choice.put("message", message);
      } else {
        choice.put("text", c.content());
      }
      choice.put("logprobs", logprobs(c.logprobs(), 0));
      choice.put("finish_reason", c.finishReason());
      array.add(choice);
    }
    return base(header, object).put("choices", array).put("usage", usage);
  }

  /**
   * The {@code logprobs} of a choice, or null when the worker sent none. Chat: {@code {"content":
   * [{token, logprob, bytes, top_logprobs: [{token, logprob, bytes}]}]}}. Completions: {@code
   * {tokens, token_logprobs, top_logprobs: [{token: logprob}], text_offset}}, the offsets counted
   * from {@code textOffset}, where these tokens' text starts in the choice's text.
   */
  private JsonObject logprobs(List<Delta.TokenLogprob> tokens, int textOffset) {
    if (tokens.isEmpty()) {
      return null;
    }
    if (this == CHAT) {
      JsonArray content = new JsonArray();
      for (Delta.TokenLogprob token : tokens) {
        JsonArray top = new JsonArray();
        for (Delta.Alternative alt : token.top()) {
          top.add(tokenEntry(alt.token(), alt.logprob()));
        }
        content.add(tokenEntry(token.token(), token.logprob()).put("top_logprobs", top));
      }
      return new JsonObject().put("content", content);
    }
    JsonArray texts = new JsonArray();
    JsonArray values = new JsonArray();
    JsonArray tops = new JsonArray();
    JsonArray offsets = new JsonArray();
    int offset = textOffset;
    for (Delta.TokenLogprob token : tokens) {
      texts.add(token.token());
      values.add(token.logprob());
      JsonObject top = new JsonObject();
      token.top().forEach(alt -> top.put(alt.token(), alt.logprob()));
      tops.add(top);
      offsets.add(offset);
      offset += token.token().length();
    }
    return new JsonObject()
        .put("tokens", texts)
        .put("token_logprobs", values)
        .put("top_logprobs", tops)
        .put("text_offset", offsets);
  }

  private static JsonObject tokenEntry(String token, double logprob) {
    JsonArray bytes = new JsonArray();
    for (byte b : token.getBytes(StandardCharsets.UTF_8)) {
      bytes.add(b & 0xff);
    }
    return new JsonObject().put("token", token).put("logprob", logprob).put("bytes", bytes);
  }

  /** Reasoning and tool calls; streamed calls carry their {@code index}, whole ones do not. */
  private static void putOutput(
      JsonObject message, String reasoning, List<Delta.ToolCall> calls, boolean streamed) {
    if (!reasoning.isEmpty()) {
      message.put("reasoning_content", reasoning);
    }
    if (!calls.isEmpty()) {
      JsonArray array = new JsonArray();
      for (Delta.ToolCall call : calls) {
        JsonObject entry =
            streamed ? new JsonObject().put("index", call.index()) : new JsonObject();
        array.add(
            entry
                .put("id", call.id())
                .put("type", "function")
                .put(
                    "function",
                    new JsonObject().put("name", call.name()).put("arguments", call.arguments())));
      }
      message.put("tool_calls", array);
    }
  }

  public static JsonObject usage(int promptTokens, int completionTokens) {
    return new JsonObject()
        .put("prompt_tokens", promptTokens)
        .put("completion_tokens", completionTokens)
        .put("total_tokens", promptTokens + completionTokens);
  }

  private static JsonObject base(Header header, String object) {
    return new JsonObject()
        .put("id", header.id())
        .put("object", object)
        .put("created", header.created())
        .put("model", header.model());
  }
}
