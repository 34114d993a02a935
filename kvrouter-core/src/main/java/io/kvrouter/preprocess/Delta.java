package io.kvrouter.preprocess;

import java.util.List;
import java.util.Objects;

/**
 * New output of a generation: answer text, reasoning text, completed tool calls and, when the
 * request asked for them, the logprobs of the tokens that arrived with it; each possibly empty.
 */
public record Delta(
    String content, String reasoning, List<ToolCall> toolCalls, List<TokenLogprob> logprobs) {
  static final Delta EMPTY = new Delta("", "", List.of());

  public Delta {
    Objects.requireNonNull(content, "content");
    Objects.requireNonNull(reasoning, "reasoning");
    toolCalls = List.copyOf(toolCalls);
    logprobs = List.copyOf(logprobs);
  }

  public Delta(String content, String reasoning, List<ToolCall> toolCalls) {
    this(content, reasoning, toolCalls, List.of());
  }

  /** The same delta carrying {@code tokens}' logprobs. */
  public Delta withLogprobs(List<TokenLogprob> tokens) {
    return new Delta(content, reasoning, toolCalls, tokens);
  }

  /** Only answer text. */
  public static Delta content(String text) {
    return new Delta(text, "", List.of());
  }

  public boolean isEmpty() {
    return content.isEmpty() && reasoning.isEmpty() && toolCalls.isEmpty() && logprobs.isEmpty();
  }

  /**
   * A generated token's log-probability and the most likely alternatives at its position.
   *
   * @param token the token's text (decoded alone, special tokens kept)
   */
  public record TokenLogprob(String token, double logprob, List<Alternative> top) {
    public TokenLogprob {
      top = List.copyOf(top);
    }
  }

  /** One alternative token at a position. */
  public record Alternative(String token, double logprob) {}

  /**
   * A tool call the model made.
   *
   * @param index its position among the response's calls, from 0
   * @param id the id the client answers it with (a {@code tool} message's {@code tool_call_id})
   * @param arguments the arguments as JSON text
   */
  public record ToolCall(int index, String id, String name, String arguments) {}
}
