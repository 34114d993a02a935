package io.kvrouter.frontend.openai;

import io.kvrouter.preprocess.Prompt;
import io.kvrouter.protocol.InvalidRequestException;
import io.vertx.core.json.JsonArray;

/**
 * Reads a completions request's {@code prompt}: a string, or token ids (an array of integers),
 * each also accepted as the only element of an array. A batch of several prompts in one request
 * is refused with a 400 that says so; send one request per prompt.
 */
final class CompletionPrompt {
  private CompletionPrompt() {}

  static Prompt read(Object value, boolean addSpecialTokens) {
    if (value == null) {
      throw new InvalidRequestException("'prompt' is required", "prompt");
    }
    if (value instanceof String text) {
      return new Prompt.Text(text, addSpecialTokens);
    }
    if (!(value instanceof JsonArray array)) {
      throw shape();
    }
    if (array.isEmpty()) {
      throw new InvalidRequestException("Validation: 'prompt' must not be empty", "prompt");
    }
    Object first = array.getValue(0);
    if (first instanceof Number) {
      return tokens(array);
    }
    if (array.size() > 1) {
      throw new InvalidRequestException(
          "Validation: 'prompt' holds " + array.size() + " prompts; this server takes one prompt"
              + " per request", "prompt");
    }
    if (first instanceof String text) {
      return new Prompt.Text(text, addSpecialTokens);
    }
    if (first instanceof JsonArray ids && !ids.isEmpty()) {
      return tokens(ids);
    }
    throw shape();
  }

  private static Prompt.Tokens tokens(JsonArray array) {
    int[] ids = new int[array.size()];
    for (int i = 0; i < ids.length; i++) {
      if (!(array.getValue(i) instanceof Integer id) || id < 0) {
        throw new InvalidRequestException(
            "'prompt' token ids must be non-negative integers; element " + i + " is "
                + array.getValue(i), "prompt");
      }
      ids[i] = id;
    }
    return new Prompt.Tokens(ids);
  }

  private static InvalidRequestException shape() {
    return JsonFields.typeError(
        "prompt", "a string, an array of token ids, or an array holding one of those");
  }
}
