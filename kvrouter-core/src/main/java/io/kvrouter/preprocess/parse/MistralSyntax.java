package io.kvrouter.preprocess.parse;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Mistral tool calls (Mistral Nemo and its tokenizer generation): the special token {@code
 * [TOOL_CALLS]} followed by a JSON array of {@code {"name": ..., "arguments": {...}}} objects. The
 * marker is a special token, so the output is decoded with special tokens kept.
 */
final class MistralSyntax extends MarkerSyntax {

  MistralSyntax() {
    super("[TOOL_CALLS]");
  }

  @Override
  public List<OutputPiece.ToolCall> parse(String section) {
    JsonNode array = ToolCallJson.parse(afterMarker(section));
    if (array == null || !array.isArray() || array.isEmpty()) {
      return null;
    }
    List<OutputPiece.ToolCall> calls = new ArrayList<>(array.size());
    for (JsonNode object : array) {
      OutputPiece.ToolCall call = ToolCallJson.call(object, "arguments");
      if (call == null) {
        return null;
      }
      calls.add(call);
    }
    return calls;
  }

  @Override
  public boolean needsSpecialTokens() {
    return true;
  }
}
