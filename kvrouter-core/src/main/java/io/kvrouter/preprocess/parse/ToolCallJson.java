package io.kvrouter.preprocess.parse;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * JSON reading and writing for tool calls. Arguments are written back as vLLM writes them, with
 * Python's {@code json.dumps(..., ensure_ascii=False)}: {@code ", "} and {@code ": "} between
 * items, non-ASCII characters as they are.
 */
final class ToolCallJson {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ToolCallJson() {}

  /** One JSON value, or null when {@code text} is not exactly one. */
  static JsonNode parse(String text) {
    try {
      return JSON.readTree(text);
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  /**
   * The JSON values of {@code text} in order, separated by whitespace and optionally {@code
   * separator}; null when anything else is there.
   */
  static List<JsonNode> parseSequence(String text, char separator) {
    List<JsonNode> values = new ArrayList<>();
    int pos = 0;
    try {
      while (true) {
        pos = skip(text, pos, separator, !values.isEmpty());
        if (pos == text.length()) {
          return values;
        }
        try (JsonParser parser = JSON.createParser(text.substring(pos))) {
          JsonNode value = JSON.readTree(parser);
          if (value == null) {
            return null;
          }
          values.add(value);
          pos += (int) parser.currentLocation().getCharOffset();
        }
      }
    } catch (IOException e) {
      return null;
    }
  }

  private static int skip(String text, int pos, char separator, boolean separatorAllowed) {
    boolean separated = false;
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (Character.isWhitespace(c)) {
        pos++;
      } else if (c == separator && separatorAllowed && !separated) {
        separated = true;
        pos++;
      } else {
        break;
      }
    }
    return pos;
  }

  /**
   * A call from an object with a string {@code name} and an object under one of {@code
   * argumentKeys}; null when {@code node} is not one.
   */
  static OutputPiece.ToolCall call(JsonNode node, String... argumentKeys) {
    if (node == null || !node.isObject() || !node.path("name").isTextual()) {
      return null;
    }
    for (String key : argumentKeys) {
      JsonNode arguments = node.get(key);
      if (arguments != null && arguments.isObject()) {
        return new OutputPiece.ToolCall(node.get("name").asText(), pythonDumps(arguments));
      }
    }
    return null;
  }

  /** {@code node} as Python's {@code json.dumps(node, ensure_ascii=False)} writes it. */
  static String pythonDumps(JsonNode node) {
    StringBuilder out = new StringBuilder();
    write(node, out);
    return out.toString();
  }

  private static void write(JsonNode node, StringBuilder out) {
    if (node.isObject()) {
      out.append('{');
      Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> field = fields.next();
        quote(field.getKey(), out);
        out.append(": ");
        write(field.getValue(), out);
        if (fields.hasNext()) {
          out.append(", ");
        }
      }
      out.append('}');
    } else if (node.isArray()) {
      out.append('[');
      for (int i = 0; i < node.size(); i++) {
        if (i > 0) {
          out.append(", ");
        }
        write(node.get(i), out);
      }
      out.append(']');
    } else if (node.isTextual()) {
      quote(node.asText(), out);
    } else {
      out.append(node.toString());
    }
  }

  private static void quote(String s, StringBuilder out) {
    out.append('"').append(JsonStringEncoder.getInstance().quoteAsString(s)).append('"');
  }
}
