package io.kvrouter.preprocess.parse;

import java.util.List;

/**
 * Streams content through until a {@link ToolCallSyntax} says tool calls start, then collects the
 * rest of the output and parses it at the end. What does not parse as tool calls reaches the client
 * as content, unchanged: a model that only looked like it was calling a tool loses nothing.
 */
final class ToolCallParser {
  private final ToolCallSyntax syntax;
  private final StringBuilder held = new StringBuilder();
  private StringBuilder section;
  private boolean afterContent;

  ToolCallParser(ToolCallSyntax syntax) {
    this.syntax = syntax;
  }

  void accept(String content, List<OutputPiece> out) {
    if (section != null) {
      section.append(content);
      return;
    }
    held.append(content);
    String text = held.toString();
    int start = syntax.start(text, afterContent);
    if (start >= 0) {
      emit(text.substring(0, start), out);
      section = new StringBuilder(text.substring(start));
      held.setLength(0);
      return;
    }
    int keep = syntax.held(text, afterContent);
    emit(text.substring(0, text.length() - keep), out);
    held.delete(0, text.length() - keep);
  }

  void finish(List<OutputPiece> out) {
    if (section == null) {
      emit(held.toString(), out);
      return;
    }
    List<OutputPiece.ToolCall> calls = syntax.parse(section.toString());
    if (calls == null) {
      emit(section.toString(), out);
    } else {
      out.addAll(calls);
    }
  }

  private void emit(String text, List<OutputPiece> out) {
    if (!text.isEmpty()) {
      out.add(new OutputPiece.Content(text));
      afterContent |= !text.isBlank();
    }
  }
}
