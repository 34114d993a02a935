package io.kvrouter.preprocess;

import io.kvrouter.protocol.PreprocessedRequest.SamplingOptions;
import java.util.List;
import java.util.Objects;

/**
 * A validated request to generate text, independent of the HTTP API it came from.
 *
 * @param maxTokens most tokens to generate, or {@code null} for the engine's default (at most what
 *     the context leaves)
 * @param maxTokensParam the request field {@code maxTokens} came from, for errors ({@code
 *     max_tokens} or {@code max_completion_tokens}); {@code max_tokens} when null
 * @param stop strings that end generation; the matched string is not returned
 * @param stopTokenIds token ids that end generation
 * @param output what the text holds besides the decoded tokens
 * @param cacheSalt the cache namespace the prompt is cached and matched under, forwarded to the
 *     worker as {@code routing.cache_salt}; null for none
 * @param clientRequestId the client's {@code X-Request-Id}, passed on to the worker; null when the
 *     client sent none. Never a key: two requests may carry the same
 */
public record GenerationRequest(
    String requestId,
    Prompt prompt,
    Integer maxTokens,
    String maxTokensParam,
    List<String> stop,
    List<Integer> stopTokenIds,
    Integer minTokens,
    boolean ignoreEos,
    SamplingOptions sampling,
    OutputOptions output,
    String cacheSalt,
    String clientRequestId) {

  public GenerationRequest {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(prompt, "prompt");
    maxTokensParam = maxTokensParam == null ? "max_tokens" : maxTokensParam;
    stop = stop == null ? List.of() : List.copyOf(stop);
    stopTokenIds = stopTokenIds == null ? List.of() : List.copyOf(stopTokenIds);
    sampling = sampling == null ? SamplingOptions.DEFAULT : sampling;
    output = output == null ? OutputOptions.TEXT : output;
    cacheSalt = cacheSalt == null || cacheSalt.isEmpty() ? null : cacheSalt;
  }

  /** A request without a cache salt or a client's id. */
  public GenerationRequest(
      String requestId,
      Prompt prompt,
      Integer maxTokens,
      String maxTokensParam,
      List<String> stop,
      List<Integer> stopTokenIds,
      Integer minTokens,
      boolean ignoreEos,
      SamplingOptions sampling,
      OutputOptions output) {
    this(
        requestId,
        prompt,
        maxTokens,
        maxTokensParam,
        stop,
        stopTokenIds,
        minTokens,
        ignoreEos,
        sampling,
        output,
        null,
        null);
  }
}
