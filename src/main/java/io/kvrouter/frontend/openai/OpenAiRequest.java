package io.kvrouter.frontend.openai;

import io.kvrouter.preprocess.GenerationRequest;
import io.kvrouter.preprocess.OutputOptions;
import io.kvrouter.preprocess.Prompt;
import io.kvrouter.protocol.PreprocessedRequest.SamplingOptions;
import java.util.List;

/**
 * A validated OpenAI chat-completions or completions request, reduced to what the router uses.
 *
 * @param includeUsage {@code stream_options.include_usage}: a last chunk carries {@code usage}
 * @param output what the response text holds besides the decoded tokens (echo, parsing, ...)
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
    OutputOptions output) {

  public GenerationRequest toGeneration(String requestId) {
    return new GenerationRequest(
        requestId, prompt, maxTokens, stop, stopTokenIds, minTokens, ignoreEos, sampling, output);
  }
}
