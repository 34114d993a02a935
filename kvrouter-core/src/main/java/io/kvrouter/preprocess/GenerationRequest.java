package io.kvrouter.preprocess;

import io.kvrouter.protocol.PreprocessedRequest.SamplingOptions;
import java.util.List;
import java.util.Objects;

/**
 * A validated request to generate text, independent of the HTTP API it came from.
 *
 * @param maxTokens most tokens to generate, or {@code null} for the engine's default
 * @param stop strings that end generation; the matched string is not returned
 * @param stopTokenIds token ids that end generation
 * @param output what the text holds besides the decoded tokens
 */
public record GenerationRequest(
    String requestId,
    Prompt prompt,
    Integer maxTokens,
    List<String> stop,
    List<Integer> stopTokenIds,
    Integer minTokens,
    boolean ignoreEos,
    SamplingOptions sampling,
    OutputOptions output) {

  public GenerationRequest {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(prompt, "prompt");
    stop = stop == null ? List.of() : List.copyOf(stop);
    stopTokenIds = stopTokenIds == null ? List.of() : List.copyOf(stopTokenIds);
    sampling = sampling == null ? SamplingOptions.DEFAULT : sampling;
    output = output == null ? OutputOptions.TEXT : output;
  }
}
