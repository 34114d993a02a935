package io.kvrouter.preprocess.parse;

import java.util.List;

/**
 * How one model family writes tool calls into its output. The calls start at a point in the content
 * (a marker such as {@code <tool_call>}, or a JSON object where the answer begins) and run to the
 * end of the output, where they are parsed as a whole.
 */
interface ToolCallSyntax {

  /**
   * Where the tool calls start in {@code text}, or -1 if they do not (yet).
   *
   * @param text content not yet emitted
   * @param afterContent whether content other than whitespace was emitted before {@code text}
   */
  int start(String text, boolean afterContent);

  /** How many characters at the end of {@code text} to hold back: a start not yet complete. */
  int held(String text, boolean afterContent);

  /**
   * The tool calls in {@code section} (from their start to the end of the output), or null when it
   * is not a valid sequence of calls: it then goes to the client as content, unchanged.
   */
  List<OutputPiece.ToolCall> parse(String section);

  /**
   * Whether the syntax's markers are special tokens, so the output must be decoded with them
   * ({@code skip_special_tokens=false}) for the parser to see them.
   */
  default boolean needsSpecialTokens() {
    return false;
  }
}
