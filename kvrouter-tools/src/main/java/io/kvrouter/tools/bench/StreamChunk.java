package io.kvrouter.tools.bench;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * What one event of a streamed completion tells the benchmark: whether it carries generated text,
 * the output token count of a usage chunk, an error, or the closing {@code [DONE]}.
 *
 * @param content some choice has non-empty {@code text}: tokens became visible output
 * @param usageTokens {@code usage.completion_tokens}, or -1 when the chunk has no usage
 * @param error the error the event reports (an {@code error} object, or data that is not JSON), or
 *     null
 * @param done the stream's closing {@code [DONE]}
 */
record StreamChunk(boolean content, int usageTokens, String error, boolean done) {
  private static final StreamChunk DONE = new StreamChunk(false, -1, null, true);

  static StreamChunk parse(String data) {
    if (data.equals("[DONE]")) {
      return DONE;
    }
    JsonObject chunk;
    try {
      chunk = new JsonObject(data);
    } catch (DecodeException | ClassCastException e) {
      return failure("an event of the stream is not a JSON object: " + abbreviate(data));
    }
    if (chunk.containsKey("error")) {
      return failure(errorMessage(chunk.getValue("error")));
    }
    return new StreamChunk(hasText(chunk.getValue("choices")), usageTokens(chunk), null, false);
  }

  /** The message of an OpenAI error value: {@code {"message": ...}} or a bare string. */
  static String errorMessage(Object error) {
    if (error instanceof JsonObject object && object.getValue("message") instanceof String text) {
      return text;
    }
    return String.valueOf(error);
  }

  private static boolean hasText(Object choices) {
    if (!(choices instanceof JsonArray array)) {
      return false;
    }
    for (Object choice : array) {
      if (choice instanceof JsonObject c
          && c.getValue("text") instanceof String text
          && !text.isEmpty()) {
        return true;
      }
    }
    return false;
  }

  private static int usageTokens(JsonObject chunk) {
    if (chunk.getValue("usage") instanceof JsonObject usage
        && usage.getValue("completion_tokens") instanceof Number tokens) {
      return tokens.intValue();
    }
    return -1;
  }

  private static StreamChunk failure(String message) {
    return new StreamChunk(false, -1, message, false);
  }

  private static String abbreviate(String text) {
    return text.length() <= 200 ? text : text.substring(0, 200) + "...";
  }
}
