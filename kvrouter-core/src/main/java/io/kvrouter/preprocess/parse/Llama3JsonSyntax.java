package io.kvrouter.preprocess.parse;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Llama 3.1 / 3.2 JSON tool calls: the whole answer is one JSON object {@code {"name": ...,
 * "parameters": {...}}} (or several separated by {@code ;}), optionally after the {@code
 * <|python_tag|>} token. Only an answer that starts that way is read as tool calls; any other
 * answer is content, streamed as it comes.
 */
final class Llama3JsonSyntax implements ToolCallSyntax {
  private static final String PYTHON_TAG = "<|python_tag|>";

  @Override
  public int start(String text, boolean afterContent) {
    if (afterContent) {
      return -1;
    }
    int first = firstNonSpace(text);
    return first < text.length()
            && (text.charAt(first) == '{' || text.startsWith(PYTHON_TAG, first))
        ? first
        : -1;
  }

  @Override
  public int held(String text, boolean afterContent) {
    if (afterContent) {
      return 0;
    }
    String rest = text.substring(firstNonSpace(text));
    // nothing but whitespace yet, or the python tag still arriving: the answer may yet be a call
    return rest.isEmpty() || PYTHON_TAG.startsWith(rest) ? text.length() : 0;
  }

  @Override
  public List<OutputPiece.ToolCall> parse(String section) {
    String json = section.startsWith(PYTHON_TAG) ? section.substring(PYTHON_TAG.length()) : section;
    List<JsonNode> objects = ToolCallJson.parseSequence(json, ';');
    if (objects == null || objects.isEmpty()) {
      return null;
    }
    List<OutputPiece.ToolCall> calls = new ArrayList<>(objects.size());
    for (JsonNode object : objects) {
      OutputPiece.ToolCall call = ToolCallJson.call(object, "parameters", "arguments");
      if (call == null) {
        return null;
      }
      calls.add(call);
    }
    return calls;
  }

  private static int firstNonSpace(String text) {
    int i = 0;
    while (i < text.length() && Character.isWhitespace(text.charAt(i))) {
      i++;
    }
    return i;
  }
}
