package io.kvrouter.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * One step of generation as a worker reports it: Dynamo's {@code LLMEngineOutput}
 * (lib/llm/src/protocols/common/llm_backend.rs). {@code tokenIds} holds only the new tokens;
 * {@code finishReason} is set on the last output of a request.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EngineOutput(
    @JsonProperty("token_ids") int[] tokenIds,
    @JsonProperty("text") String text,
    @JsonProperty("finish_reason") FinishReason finishReason,
    @JsonProperty("index") Integer index) {

  private static final int[] NO_TOKENS = new int[0];

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
        && Objects.equals(index, e.index);
  }

  @Override
  public int hashCode() {
    return Objects.hash(java.util.Arrays.hashCode(tokenIds), text, finishReason, index);
  }

  @Override
  public String toString() {
    return "EngineOutput[tokens=" + java.util.Arrays.toString(tokenIds)
        + (finishReason == null ? "" : ", finish=" + finishReason) + "]";
  }
}
