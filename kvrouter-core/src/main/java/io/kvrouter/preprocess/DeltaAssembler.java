package io.kvrouter.preprocess;

import io.kvrouter.preprocess.parse.OutputParser;
import io.kvrouter.preprocess.parse.OutputPiece;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Turns a response's text into {@link Delta}s: through the response's {@link OutputParser} when it
 * has one, with tool calls numbered in order and given ids as vLLM forms them.
 */
final class DeltaAssembler {
  private final OutputParser parser;
  private int toolCalls;

  /**
   * @param parser the response's parser, or null when its text is all content
   */
  DeltaAssembler(OutputParser parser) {
    this.parser = parser;
  }

  Delta accept(String text) {
    if (parser == null) {
      return Delta.content(text);
    }
    return text.isEmpty() ? Delta.EMPTY : assemble(parser.accept(text));
  }

  /** The last delta: {@code text} and whatever the parser still held. */
  Delta finish(String text) {
    if (parser == null) {
      return Delta.content(text);
    }
    List<OutputPiece> pieces = new ArrayList<>(parser.accept(text));
    pieces.addAll(parser.finish());
    return assemble(pieces);
  }

  private Delta assemble(List<OutputPiece> pieces) {
    StringBuilder content = new StringBuilder();
    StringBuilder reasoning = new StringBuilder();
    List<Delta.ToolCall> calls = new ArrayList<>(0);
    for (OutputPiece piece : pieces) {
      if (piece instanceof OutputPiece.Content c) {
        content.append(c.text());
      } else if (piece instanceof OutputPiece.Reasoning r) {
        reasoning.append(r.text());
      } else {
        OutputPiece.ToolCall call = (OutputPiece.ToolCall) piece;
        String id = "chatcmpl-tool-" + UUID.randomUUID().toString().replace("-", "");
        calls.add(new Delta.ToolCall(toolCalls++, id, call.name(), call.arguments()));
      }
    }
    return new Delta(content.toString(), reasoning.toString(), calls);
  }
}
