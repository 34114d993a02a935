package io.kvrouter.preprocess.parse;

import java.util.ArrayList;
import java.util.List;

/**
 * Hermes-style tool calls (Qwen 2.5, Qwen 3): each call is a JSON object {@code {"name": ...,
 * "arguments": {...}}} between {@code <tool_call>} and {@code </tool_call>}, one block per call,
 * with only whitespace between blocks. A last block the output ended inside is read to its end.
 */
final class HermesSyntax extends MarkerSyntax {
  private static final String OPEN = "<tool_call>";
  private static final String CLOSE = "</tool_call>";

  HermesSyntax() {
    super(OPEN);
  }

  @Override
  public List<OutputPiece.ToolCall> parse(String section) {
    List<OutputPiece.ToolCall> calls = new ArrayList<>();
    int pos = 0;
    while (pos < section.length()) {
      if (!section.startsWith(OPEN, pos)) {
        return null;
      }
      int bodyStart = pos + OPEN.length();
      int close = section.indexOf(CLOSE, bodyStart);
      int bodyEnd = close < 0 ? section.length() : close;
      OutputPiece.ToolCall call =
          ToolCallJson.call(ToolCallJson.parse(section.substring(bodyStart, bodyEnd)), "arguments");
      if (call == null) {
        return null;
      }
      calls.add(call);
      pos = close < 0 ? section.length() : close + CLOSE.length();
      while (pos < section.length() && Character.isWhitespace(section.charAt(pos))) {
        pos++;
      }
    }
    return calls;
  }
}
