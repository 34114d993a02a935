package io.kvrouter.frontend.openai;

import io.kvrouter.preprocess.GenerationRequest;
import io.kvrouter.preprocess.Prompt;
import io.kvrouter.protocol.PreprocessedRequest.SamplingOptions;
import java.util.List;

/**
 * A validated OpenAI chat-completions or completions request, reduced to what the router uses.
 *
 * @param includeUsage {@code stream_options.include_usage}: a last chunk carries {@code usage}
 * @param echo completions only: the prompt is returned before the generated text
 */
public record OpenAiRequest(
    String model,
    boolean stream,
    boolean includeUsage,
    Prompt prompt,
    Integer maxTokens,
    List<String> stop,
    List<Integer> stopTokenIds,
    Integer minTokens,
    boolean ignoreEos,
    SamplingOptions sampling,
    boolean echo) {

  public GenerationRequest toGeneration(String requestId) {
    return new GenerationRequest(
        requestId, prompt, maxTokens, stop, stopTokenIds, minTokens, ignoreEos, sampling);
  }
}
