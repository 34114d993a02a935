package io.kvrouter.frontend.openai;

import io.kvrouter.preprocess.Delta;
import io.kvrouter.protocol.FinishReason;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
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
   * One streamed chunk. The first chat chunk also names the assistant role; {@code finishReason}
   * is {@code null} until the last. A chat delta carries {@code content}, {@code
   * reasoning_content} and {@code tool_calls} (each call whole, with its index) when it has them;
   * a completion chunk carries the content as {@code text}.
   */
  public JsonObject chunk(Header header, Delta delta, boolean first, String finishReason) {
    JsonObject choice = new JsonObject().put("index", 0);
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
    choice.put("logprobs", null).put("finish_reason", finishReason);
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

  /**
   * The whole response of a non-streamed request. A chat message whose answer is only tool calls
   * (and the whitespace the model wrote around them) has {@code content} null, as OpenAI sends
   * it.
   */
  public JsonObject full(
      Header header,
      String content,
      String reasoning,
      List<Delta.ToolCall> toolCalls,
      String finishReason,
      JsonObject usage) {
    JsonObject choice = new JsonObject().put("index", 0);
    if (this == CHAT) {
      JsonObject message = new JsonObject().put("role", "assistant");
      message.put("content", content.isBlank() && !toolCalls.isEmpty() ? null : content);
      putOutput(message, reasoning, toolCalls, false);
      choice.put("message", message);
    } else {
      choice.put("text", content);
    }
    choice.put("logprobs", null).put("finish_reason", finishReason);
    return base(header, object).put("choices", new JsonArray().add(choice)).put("usage", usage);
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
        JsonObject entry = streamed ? new JsonObject().put("index", call.index()) : new JsonObject();
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
