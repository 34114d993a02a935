package io.kvrouter.frontend.openai;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

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
   * is {@code null} until the last.
   */
  public JsonObject chunk(Header header, String text, boolean first, String finishReason) {
    JsonObject choice = new JsonObject().put("index", 0);
    if (this == CHAT) {
      JsonObject delta = new JsonObject();
      if (first) {
        delta.put("role", "assistant");
      }
      if (!text.isEmpty() || first) {
        delta.put("content", text);
      }
      choice.put("delta", delta);
    } else {
      choice.put("text", text);
    }
    choice.put("logprobs", null).put("finish_reason", finishReason);
    return base(header, chunkObject).put("choices", new JsonArray().add(choice));
  }

  /** The last streamed chunk when usage was asked for: no choices, only usage. */
  public JsonObject usageChunk(Header header, JsonObject usage) {
    return base(header, chunkObject).put("choices", new JsonArray()).put("usage", usage);
  }

  /** The whole response of a non-streamed request. */
  public JsonObject full(Header header, String text, String finishReason, JsonObject usage) {
    JsonObject choice = new JsonObject().put("index", 0);
    if (this == CHAT) {
      choice.put("message", new JsonObject().put("role", "assistant").put("content", text));
    } else {
      choice.put("text", text);
    }
    choice.put("logprobs", null).put("finish_reason", finishReason);
    return base(header, object).put("choices", new JsonArray().add(choice)).put("usage", usage);
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
