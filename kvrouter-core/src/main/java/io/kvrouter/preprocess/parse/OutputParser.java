package io.kvrouter.preprocess.parse;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses one response's generated text as it streams: reasoning first ({@code <think>} blocks
 * become {@link OutputPiece.Reasoning}), then tool calls in the content that is left. One instance
 * per response; not thread-safe.
 *
 * <pre>
 *   text ──> ThinkTagReasoning ──reasoning──────────────────────────> pieces
 *                              └─content──> ToolCallParser ──content/calls──> pieces
 * </pre>
 */
public final class OutputParser {
  private final ThinkTagReasoning reasoning;
  private final ToolCallParser toolCalls;

  /** gpt-oss's harmony format, which carries reasoning and tool calls alike; else null. */
  private final HarmonyParser harmony;

  private OutputParser(
      ThinkTagReasoning reasoning, ToolCallParser toolCalls, HarmonyParser harmony) {
    this.reasoning = reasoning;
    this.toolCalls = toolCalls;
    this.harmony = harmony;
  }

  /**
   * A parser for a response to {@code prompt}.
   *
   * @param reasoning the reasoning parser, or null to leave think blocks in the content
   * @param tools the tool-call parser, or null to leave tool calls in the content
   * @param prompt the prompt text, read for a think block it leaves open
   */
  public static OutputParser of(
      ReasoningParserName reasoning, ToolCallParserName tools, String prompt) {
    if (reasoning == ReasoningParserName.GPT_OSS || tools == ToolCallParserName.HARMONY) {
      return new OutputParser(null, null, new HarmonyParser(reasoning != null, tools != null));
    }
    return new OutputParser(
        reasoning == null
            ? null
            : new ThinkTagReasoning(ThinkTagReasoning.promptLeavesOpen(prompt)),
        tools == null ? null : new ToolCallParser(tools.syntax()),
        null);
  }

  /** The pieces {@code text} completes; a marker cut across deltas waits for its end. */
  public List<OutputPiece> accept(String text) {
    List<OutputPiece> split = new ArrayList<>(2);
    if (harmony != null) {
      harmony.accept(text, split);
      return split;
    }
    if (reasoning == null) {
      split.add(new OutputPiece.Content(text));
    } else {
      reasoning.accept(text, split);
    }
    return toToolCalls(split, false);
  }

  /** What is left at the end of the output, tool calls included. */
  public List<OutputPiece> finish() {
    List<OutputPiece> split = new ArrayList<>(2);
    if (harmony != null) {
      harmony.finish(split);
      return split;
    }
    if (reasoning != null) {
      reasoning.finish(split);
    }
    return toToolCalls(split, true);
  }

  private List<OutputPiece> toToolCalls(List<OutputPiece> split, boolean last) {
    if (toolCalls == null) {
      return split;
    }
    List<OutputPiece> out = new ArrayList<>(split.size() + 1);
    for (OutputPiece piece : split) {
      if (piece instanceof OutputPiece.Content content) {
        toolCalls.accept(content.text(), out);
      } else {
        out.add(piece);
      }
    }
    if (last) {
      toolCalls.finish(out);
    }
    return out;
  }
}
