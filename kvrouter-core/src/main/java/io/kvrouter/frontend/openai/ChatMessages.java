package io.kvrouter.frontend.openai;

import io.kvrouter.preprocess.ChatMessage;
import io.kvrouter.protocol.InvalidRequestException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reads the {@code messages} of a chat request: roles, content as a string or text parts, assistant
 * tool calls (their JSON-string arguments parsed as vLLM parses them, {@link ToolCallArguments}),
 * tool results and assistant reasoning. Anything else in a message is refused by name.
 */
final class ChatMessages {
  private ChatMessages() {}

  static final Set<String> ROLES = Set.of("system", "developer", "user", "assistant", "tool");
  private static final Set<String> FIELDS =
      Set.of(
          "role",
          "content",
          "name",
          "tool_calls",
          "tool_call_id",
          "reasoning_content",
          "reasoning");

  static List<ChatMessage> read(JsonArray array) {
    if (array == null) {
      throw new InvalidRequestException("'messages' is required", "messages");
    }
    if (array.isEmpty()) {
      throw new InvalidRequestException("Validation: 'messages' must not be empty", "messages");
    }
    List<ChatMessage> messages = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      String param = "messages[" + i + "]";
      if (!(array.getValue(i) instanceof JsonObject message)) {
        throw JsonFields.typeError(param, "an object");
      }
      messages.add(message(new JsonFields(message, param), message, param));
    }
    return messages;
  }

  private static ChatMessage message(JsonFields m, JsonObject json, String param) {
    m.rejectUnknown(FIELDS);
    String role = m.string("role");
    if (!ROLES.contains(role)) {
      throw new InvalidRequestException(
          "'"
              + param
              + ".role' must be one of system, developer, user, assistant, tool; got '"
              + role
              + "'",
          param + ".role");
    }
    boolean assistant = role.equals("assistant");
    onlyFor(m, assistant, "assistant", "tool_calls", "reasoning_content", "reasoning");
    onlyFor(m, role.equals("tool"), "tool", "tool_call_id");
    List<ChatMessage.ToolCall> toolCalls =
        assistant ? toolCalls(m.array("tool_calls"), m.param("tool_calls")) : List.of();
    ChatMessage.Content content = content(json.getValue("content"), m.param("content"));
    if (content == null && !assistant) {
      throw new InvalidRequestException(
          "'" + m.param("content") + "' is required", m.param("content"));
    }
    String reasoning = m.has("reasoning_content") ? m.string("reasoning_content") : null;
    if (m.has("reasoning")) {
      reasoning = m.string("reasoning");
    }
    return new ChatMessage(
        role,
        content,
        m.has("name") ? m.string("name") : null,
        toolCalls,
        m.has("tool_call_id") ? m.string("tool_call_id") : null,
        reasoning);
  }

  private static void onlyFor(JsonFields m, boolean allowed, String role, String... fields) {
    for (String field : fields) {
      if (!allowed && m.has(field)) {
        throw new InvalidRequestException(
            "'" + m.param(field) + "' is only allowed in a message with role " + role,
            m.param(field));
      }
    }
  }

  /** A string, an array of {@code {"type":"text","text":...}} parts, or null. */
  private static ChatMessage.Content content(Object value, String param) {
    if (value == null) {
      return null;
    }
    if (value instanceof String s) {
      return new ChatMessage.Content.Text(s);
    }
    if (!(value instanceof JsonArray parts)) {
      throw JsonFields.typeError(param, "a string or an array of content parts");
    }
    List<String> texts = new ArrayList<>(parts.size());
    for (int i = 0; i < parts.size(); i++) {
      String partParam = param + "[" + i + "]";
      if (!(parts.getValue(i) instanceof JsonObject part)) {
        throw JsonFields.typeError(partParam, "an object");
      }
      Object type = part.getValue("type");
      if (!"text".equals(type)) {
        throw new InvalidRequestException(
            "'"
                + partParam
                + ".type' "
                + (type == null ? "is missing" : "'" + type + "'")
                + ": only text parts ({\"type\":\"text\",\"text\":...}) are supported",
            partParam + ".type");
      }
      JsonFields fields = new JsonFields(part, partParam);
      fields.rejectUnknown(Set.of("type", "text"));
      texts.add(fields.string("text"));
    }
    return new ChatMessage.Content.Parts(texts);
  }

  private static List<ChatMessage.ToolCall> toolCalls(JsonArray array, String param) {
    if (array == null) {
      return List.of();
    }
    List<ChatMessage.ToolCall> calls = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      String callParam = param + "[" + i + "]";
      if (!(array.getValue(i) instanceof JsonObject call)) {
        throw JsonFields.typeError(callParam, "an object");
      }
      JsonFields c = new JsonFields(call, callParam);
      c.rejectUnknown(Set.of("id", "type", "function"));
      JsonFields f = c.function(Set.of("name", "arguments"));
      calls.add(
          new ChatMessage.ToolCall(
              c.has("id") ? c.string("id") : null,
              f.string("name"),
              ToolCallArguments.read(f.raw("arguments"), f.param("arguments"))));
    }
    return calls;
  }
}
