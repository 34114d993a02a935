package io.kvrouter.preprocess;

/**
 * What a generation's text should hold besides the plain decoded tokens.
 *
 * @param skipSpecialTokens special tokens are left out of the text (vLLM's default)
 * @param includeStopString a matched stop string stays at the end of the text
 * @param echo the prompt's text is returned before the generated text (completions)
 * @param parseReasoning think blocks become reasoning, when the model has a reasoning parser
 * @param parseToolCalls tool calls become {@link Delta.ToolCall}s, when the model has a tool-call
 *     parser
 * @param logprobs how many alternatives per token the worker is asked to return with each token's
 *     logprob (0 for the token's own only), or null for no logprobs
 */
public record OutputOptions(
    boolean skipSpecialTokens,
    boolean includeStopString,
    boolean echo,
    boolean parseReasoning,
    boolean parseToolCalls,
    Integer logprobs) {

  /** Plain text: special tokens skipped, no stop string, no echo, nothing parsed, no logprobs. */
  public static final OutputOptions TEXT =
      new OutputOptions(true, false, false, false, false, null);
}
