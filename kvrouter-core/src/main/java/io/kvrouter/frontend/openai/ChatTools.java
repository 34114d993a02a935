package io.kvrouter.frontend.openai;

import io.kvrouter.protocol.InvalidRequestException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a chat request's {@code tools}, {@code tool_choice} and {@code parallel_tool_calls}.
 *
 * <p>Tools reach the template as vLLM hands them over (its request model dumped): {@code {"type":
 * "function", "function": {"name", "description", "parameters", ...}}} in that order, a missing
 * description or parameters as None, since templates print them with {@code tojson}; then any other
 * field of the function ({@code "strict": false}, vendor extensions) with its value, in the order
 * the request gives them, as vLLM's {@code FunctionDefinition} keeps extra fields ({@code
 * vllm/entrypoints/openai/engine/protocol.py} at commit {@code
 * 040a2cc2a6295ea9c313d86526ff90a103eacb3e}; later vLLM declares {@code strict} and {@code
 * defer_loading} and drops other extras, which only differs for fields other than those two).
 * Qwen's templates print each tool with {@code tojson}, so a dropped field changes the prompt.
 *
 * <p>{@code tool_choice}: {@code "auto"} (the default when tools are given) parses the model's tool
 * calls out of its output; {@code "none"} leaves the output as content (the tools are still
 * rendered, as vLLM does by default). {@code "required"}, a named function and {@code "strict":
 * true} schemas need constrained decoding at the worker, which the router cannot promise, so they
 * are refused rather than silently not enforced.
 */
final class ChatTools {
  private ChatTools() {}

  /** The fields of vLLM's function definition, which come first, in this order. */
  private static final Set<String> DECLARED = Set.of("name", "description", "parameters");

  /** The tools as template values, or null when the request has none. */
  static List<Map<String, Object>> read(JsonArray array) {
    if (array == null) {
      return null;
    }
    List<Map<String, Object>> tools = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      String param = "tools[" + i + "]";
      if (!(array.getValue(i) instanceof JsonObject tool)) {
        throw JsonFields.typeError(param, "an object");
      }
      JsonFields t = new JsonFields(tool, param);
      t.rejectUnknown(Set.of("type", "function"));
      JsonFields f = t.function(null);
      if (f.bool("strict", false)) {
        throw new InvalidRequestException(
            "'"
                + f.param("strict")
                + "' true is not supported: strict schemas need constrained"
                + " decoding at the worker",
            f.param("strict"));
      }
      Map<String, Object> definition = new LinkedHashMap<>();
      definition.put("name", f.string("name"));
      definition.put("description", f.has("description") ? f.string("description") : null);
      JsonObject parameters = f.object("parameters");
      definition.put("parameters", parameters == null ? null : JsonValues.plainMap(parameters));
      for (String name : f.names()) {
        if (!DECLARED.contains(name)) {
          definition.put(name, JsonValues.plain(f.raw(name)));
        }
      }
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("type", "function");
      entry.put("function", definition);
      tools.add(entry);
    }
    return tools;
  }

  /** Whether the model's output is to be read for tool calls ({@code tool_choice} "auto"). */
  static boolean callsExpected(JsonFields f, List<Map<String, Object>> tools) {
    if (f.has("parallel_tool_calls") && !f.bool("parallel_tool_calls", true)) {
      throw OpenAiRequests.unsupported("parallel_tool_calls");
    }
    boolean hasTools = tools != null && !tools.isEmpty();
    String choice = f.has("tool_choice") ? toolChoice(f) : (hasTools ? "auto" : "none");
    if (!"none".equals(choice) && !hasTools) {
      throw new InvalidRequestException(
          "'tool_choice' \"" + choice + "\" needs 'tools'", "tool_choice");
    }
    return "auto".equals(choice);
  }

  private static String toolChoice(JsonFields f) {
    Object value = f.raw("tool_choice");
    if ("none".equals(value) || "auto".equals(value)) {
      return (String) value;
    }
    if (!(value instanceof String) && !(value instanceof JsonObject)) {
      throw JsonFields.typeError("tool_choice", "\"none\", \"auto\" or an object");
    }
    throw new InvalidRequestException(
        "'tool_choice' "
            + (value instanceof String ? "\"" + value + "\"" : "naming a function")
            + " is not supported: it needs constrained decoding at the worker; use \"auto\" or"
            + " \"none\"",
        "tool_choice");
  }
}
