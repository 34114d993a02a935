package io.kvrouter.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Objects;

/**
 * One step of generation as a worker reports it: Dynamo's {@code LLMEngineOutput}
 * (lib/llm/src/protocols/common/llm_backend.rs). {@code tokenIds} holds only the new tokens; {@code
 * finishReason} is set on the last output of a request. When the request asked for logprobs ({@code
 * output_options.logprobs}), {@code logProbs} holds one log-probability per new token and {@code
 * topLogprobs} the most likely alternatives at each position.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EngineOutput(
    @JsonProperty("token_ids") int[] tokenIds,
    @JsonProperty("text") String text,
    @JsonProperty("finish_reason") FinishReason finishReason,
    @JsonProperty("index") Integer index,
    @JsonProperty("log_probs") List<Double> logProbs,
    @JsonProperty("top_logprobs") List<List<TopLogprob>> topLogprobs) {

  private static final int[] NO_TOKENS = new int[0];

  /** One alternative token at a position, with its rank (1 for the most likely). */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record TopLogprob(
      @JsonProperty("rank") Integer rank,
      @JsonProperty("token_id") int tokenId,
      @JsonProperty("token") String token,
      @JsonProperty("logprob") double logprob) {}

  public EngineOutput(int[] tokenIds, String text, FinishReason finishReason, Integer index) {
    this(tokenIds, text, finishReason, index, null, null);
  }

  /** The same output with these logprobs. */
  public EngineOutput withLogprobs(List<Double> logProbs, List<List<TopLogprob>> topLogprobs) {
    return new EngineOutput(tokenIds, text, finishReason, index, logProbs, topLogprobs);
  }

  public EngineOutput {
    tokenIds = tokenIds == null ? NO_TOKENS : tokenIds;
  }

  public static EngineOutput tokens(int... tokenIds) {
    return new EngineOutput(tokenIds, null, null, null);
  }

  public static EngineOutput finished(FinishReason reason, int... tokenIds) {
    return new EngineOutput(tokenIds, null, Objects.requireNonNull(reason), null);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EngineOutput e
        && java.util.Arrays.equals(tokenIds, e.tokenIds)
        && Objects.equals(text, e.text)
        && Objects.equals(finishReason, e.finishReason)
        && Objects.equals(index, e.index)
        && Objects.equals(logProbs, e.logProbs)
        && Objects.equals(topLogprobs, e.topLogprobs);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        java.util.Arrays.hashCode(tokenIds), text, finishReason, index, logProbs, topLogprobs);
  }

  @Override
  public String toString() {
    return "EngineOutput[tokens="
        + java.util.Arrays.toString(tokenIds)
        + (finishReason == null ? "" : ", finish=" + finishReason)
        + "]";
  }
}
