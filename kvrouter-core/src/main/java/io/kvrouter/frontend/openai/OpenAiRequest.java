package io.kvrouter.frontend.openai;

import io.kvrouter.preprocess.GenerationRequest;
import io.kvrouter.preprocess.OutputOptions;
import io.kvrouter.preprocess.Prompt;
import io.kvrouter.protocol.PreprocessedRequest.SamplingOptions;
import java.util.ArrayList;
import java.util.List;

/**
 * A validated OpenAI chat-completions or completions request, reduced to what the router uses.
 *
 * @param includeUsage {@code stream_options.include_usage}: a last chunk carries {@code usage}
 * @param prompts one per choice: a chat request has one; a completions request one per prompt
 * @param maxTokensParam the field {@code maxTokens} came from: {@code max_tokens} or {@code
 *     max_completion_tokens}
 * @param output what the response text holds besides the decoded tokens (echo, parsing, ...)
 * @param cacheSalt the cache namespace the prompts are cached and matched under ({@link
 *     CacheSalts}); null for none. The frontend replaces the body's salt by the request's effective
 *     one ({@link #withCacheSalt}) before generating.
 */
public record OpenAiRequest(
    String model,
    boolean stream,
    boolean includeUsage,
    List<Prompt> prompts,
    Integer maxTokens,
    String maxTokensParam,
    List<String> stop,
    List<Integer> stopTokenIds,
    Integer minTokens,
    boolean ignoreEos,
    SamplingOptions sampling,
    OutputOptions output,
    String cacheSalt) {

  public OpenAiRequest {
    prompts = List.copyOf(prompts);
    if (prompts.isEmpty()) {
      throw new IllegalArgumentException("no prompt");
    }
  }

  /** This request under cache namespace {@code salt} (null: none). */
  public OpenAiRequest withCacheSalt(String salt) {
    return new OpenAiRequest(
        model,
        stream,
        includeUsage,
        prompts,
        maxTokens,
        maxTokensParam,
        stop,
        stopTokenIds,
        minTokens,
        ignoreEos,
        sampling,
        output,
        salt);
  }

  /** The first prompt (a chat request's only one). */
  public Prompt prompt() {
    return prompts.get(0);
  }

  /** The generation of the first prompt, under {@code requestId}. */
  public GenerationRequest toGeneration(String requestId) {
    return toGeneration(requestId, prompt(), null);
  }

  /**
   * One generation per prompt: the request id as it is for a single prompt, else suffixed with the
   * prompt's index ({@code id-0}, {@code id-1}, ...).
   */
  public List<GenerationRequest> toGenerations(String requestId) {
    return toGenerations(requestId, null);
  }

  /**
   * As {@link #toGenerations(String)}, each carrying {@code clientRequestId}, the client's {@code
   * X-Request-Id} (null when it sent none), for the workers.
   */
  public List<GenerationRequest> toGenerations(String requestId, String clientRequestId) {
    if (prompts.size() == 1) {
      return List.of(toGeneration(requestId, prompt(), clientRequestId));
    }
    List<GenerationRequest> generations = new ArrayList<>(prompts.size());
    for (int i = 0; i < prompts.size(); i++) {
      generations.add(toGeneration(requestId + "-" + i, prompts.get(i), clientRequestId));
    }
    return generations;
  }

  private GenerationRequest toGeneration(String requestId, Prompt prompt, String clientRequestId) {
    return new GenerationRequest(
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
        cacheSalt,
        clientRequestId);
  }
}
