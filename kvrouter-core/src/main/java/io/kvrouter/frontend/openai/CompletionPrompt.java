package io.kvrouter.frontend.openai;

import io.kvrouter.preprocess.Prompt;
import io.kvrouter.protocol.InvalidRequestException;
import io.vertx.core.json.JsonArray;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a completions request's {@code prompt}: a string, token ids (an array of integers), or an
 * array of either, one choice per prompt, as OpenAI's API takes them.
 */
final class CompletionPrompt {
  private CompletionPrompt() {}

  /** At most this many prompts in one request, as Dynamo and vLLM bound {@code n}. */
  static final int MAX_PROMPTS = 128;

  static List<Prompt> read(Object value, boolean addSpecialTokens) {
    if (value == null) {
      throw new InvalidRequestException("'prompt' is required", "prompt");
    }
    if (value instanceof String text) {
      return List.of(new Prompt.Text(text, addSpecialTokens));
    }
    if (!(value instanceof JsonArray array)) {
      throw shape();
    }
    if (array.isEmpty()) {
      throw new InvalidRequestException("Validation: 'prompt' must not be empty", "prompt");
    }
    if (array.getValue(0) instanceof Number) {
      return List.of(tokens(array, "prompt"));
    }
    if (array.size() > MAX_PROMPTS) {
      throw new InvalidRequestException(
          "Validation: 'prompt' holds "
              + array.size()
              + " prompts; at most "
              + MAX_PROMPTS
              + " are allowed",
          "prompt");
    }
    List<Prompt> prompts = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      Object item = array.getValue(i);
      if (item instanceof String text) {
        prompts.add(new Prompt.Text(text, addSpecialTokens));
      } else if (item instanceof JsonArray ids && !ids.isEmpty()) {
        prompts.add(tokens(ids, "prompt[" + i + "]"));
      } else {
        throw shape();
      }
    }
    return prompts;
  }

  private static Prompt.Tokens tokens(JsonArray array, String param) {
    int[] ids = new int[array.size()];
    for (int i = 0; i < ids.length; i++) {
      if (!(array.getValue(i) instanceof Integer id) || id < 0) {
        throw new InvalidRequestException(
            "'"
                + param
                + "' token ids must be non-negative integers; element "
                + i
                + " is "
                + array.getValue(i),
            "prompt");
      }
      ids[i] = id;
    }
    return new Prompt.Tokens(ids);
  }

  private static InvalidRequestException shape() {
    return JsonFields.typeError(
        "prompt", "a string, an array of token ids, or an array of strings or of token-id arrays");
  }
}
