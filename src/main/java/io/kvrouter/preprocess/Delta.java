package io.kvrouter.preprocess;

import java.util.List;
import java.util.Objects;

/**
 * New output of a generation: answer text, reasoning text and completed tool calls, each
 * possibly empty.
 */
public record Delta(String content, String reasoning, List<ToolCall> toolCalls) {
  static final Delta EMPTY = new Delta("", "", List.of());

  public Delta {
    Objects.requireNonNull(content, "content");
    Objects.requireNonNull(reasoning, "reasoning");
    toolCalls = List.copyOf(toolCalls);
  }

  /** Only answer text. */
  public static Delta content(String text) {
    return new Delta(text, "", List.of());
  }

  public boolean isEmpty() {
    return content.isEmpty() && reasoning.isEmpty() && toolCalls.isEmpty();
  }

  /**
   * A tool call the model made.
   *
   * @param index its position among the response's calls, from 0
   * @param id the id the client answers it with (a {@code tool} message's {@code tool_call_id})
   * @param arguments the arguments as JSON text
   */
  public record ToolCall(int index, String id, String name, String arguments) {}
}
