package io.kvrouter.preprocess;

import io.kvrouter.protocol.InvalidRequestException;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The most tokens one request may hold, prompt and completion together: the model's context length
 * or the largest worker's KV cache, whichever is smaller. A request over it can never be served, so
 * it is refused with a 400 naming the limit (as vLLM refuses one over its {@code max_model_len})
 * instead of being sent to a worker that must refuse it; a request without {@code max_tokens} may
 * use what its prompt leaves.
 *
 * @param tokens the limit
 * @param kvCache whether the limit is the workers' KV cache rather than the model's context length
 */
record SequenceLimit(int tokens, boolean kvCache) {

  /**
   * The smaller of the two limits, a tie going to the context length; empty when neither is known.
   */
  static Optional<SequenceLimit> of(OptionalInt contextLength, OptionalLong kvCapacityTokens) {
    if (kvCapacityTokens.isPresent()
        && (contextLength.isEmpty() || kvCapacityTokens.getAsLong() < contextLength.getAsInt())) {
      return Optional.of(
          new SequenceLimit((int) Math.min(Integer.MAX_VALUE, kvCapacityTokens.getAsLong()), true));
    }
    return contextLength.isPresent()
        ? Optional.of(new SequenceLimit(contextLength.getAsInt(), false))
        : Optional.empty();
  }

  /**
   * Refuses a {@code max_tokens} that is over the limit on its own, before the prompt is tokenized.
   */
  void checkMaxTokens(GenerationRequest request) {
    Integer maxTokens = request.maxTokens();
    if (maxTokens != null && maxTokens > tokens) {
      throw new InvalidRequestException(
          "'"
              + request.maxTokensParam()
              + "' is "
              + maxTokens
              + ", more than "
              + (kvCache
                  ? "the " + tokens + " tokens the largest worker's KV cache holds"
                  : "this model's context length of " + tokens + " tokens")
              + " (prompt and completion together)",
          request.maxTokensParam());
    }
  }

  /**
   * The most tokens the completion of a prompt of {@code promptTokens} may have: the request's
   * {@code max_tokens}, or what the prompt leaves when it has none.
   *
   * @throws InvalidRequestException when the prompt and {@code max_tokens} together are over the
   *     limit, when the prompt leaves no room for a completion, or when {@code min_tokens} asks for
   *     more than is left
   */
  int completionTokens(GenerationRequest request, int promptTokens) {
    Integer maxTokens = request.maxTokens();
    if (maxTokens != null) {
      if ((long) promptTokens + maxTokens > tokens) {
        throw new InvalidRequestException(
            statement()
                + ", but this request needs "
                + ((long) promptTokens + maxTokens)
                + ": "
                + promptTokens
                + " in the prompt and "
                + maxTokens
                + " for the completion ('"
                + request.maxTokensParam()
                + "'). Shorten the prompt or lower '"
                + request.maxTokensParam()
                + "'.",
            request.maxTokensParam());
      }
      return maxTokens;
    }
    if (promptTokens >= tokens) {
      String promptParam = request.prompt() instanceof Prompt.Chat ? "messages" : "prompt";
      throw new InvalidRequestException(
          statement()
              + ", but the prompt alone has "
              + promptTokens
              + ", which leaves no room for a completion. Shorten the prompt.",
          promptParam);
    }
    int left = tokens - promptTokens;
    if (request.minTokens() != null && request.minTokens() > left) {
      throw new InvalidRequestException(
          "'min_tokens' is "
              + request.minTokens()
              + ", more than the "
              + left
              + " tokens a prompt of "
              + promptTokens
              + " leaves for the completion. "
              + statement()
              + ".",
          "min_tokens");
    }
    return left;
  }

  /** What the limit is, as a sentence's start. */
  private String statement() {
    return kvCache
        ? "The largest worker's KV cache holds " + tokens + " tokens"
        : "This model's context length is " + tokens + " tokens";
  }
}
