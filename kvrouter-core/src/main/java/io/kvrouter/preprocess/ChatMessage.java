package io.kvrouter.preprocess;

import java.util.List;
import java.util.Objects;

/**
 * One message of a chat conversation, validated, with what a chat template can read of it.
 *
 * @param role {@code system}, {@code developer}, {@code user}, {@code assistant} or {@code tool}
 * @param content the text as sent: a string, an array of text parts, or none (null) for an
 *     assistant message that only calls tools
 * @param name the participant's name, or null
 * @param toolCalls the tools an assistant message called (empty for none)
 * @param toolCallId for a tool message: the id of the call it answers, or null
 * @param reasoning an assistant message's reasoning ({@code reasoning}, which vLLM reads, or the
 *     router's alias {@code reasoning_content}), or null
 */
public record ChatMessage(
    String role,
    Content content,
    String name,
    List<ToolCall> toolCalls,
    String toolCallId,
    String reasoning) {

  public ChatMessage {
    Objects.requireNonNull(role, "role");
    toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
  }

  /** A message with plain text content and nothing else. */
  public ChatMessage(String role, String text) {
    this(role, new Content.Text(text), null, List.of(), null, null);
  }

  public static ChatMessage system(String content) {
    return new ChatMessage("system", content);
  }

  public static ChatMessage user(String content) {
    return new ChatMessage("user", content);
  }

  public static ChatMessage assistant(String content) {
    return new ChatMessage("assistant", content);
  }

  /**
   * The content as one string, as vLLM gives it to a template that expects a string: text parts
   * joined with newlines, and the empty string for none.
   */
  public String text() {
    return content == null ? "" : content.text();
  }

  /** Message content as the request sent it. */
  public sealed interface Content {
    String text();

    /** A string. */
    record Text(String text) implements Content {
      public Text {
        Objects.requireNonNull(text, "text");
      }
    }

    /** An array of text parts (OpenAI's {@code {"type":"text","text":...}}). */
    record Parts(List<String> texts) implements Content {
      public Parts {
        texts = List.copyOf(texts);
      }

      @Override
      public String text() {
        return String.join("\n", texts);
      }
    }
  }

  /**
   * One tool call of an assistant message.
   *
   * @param arguments the call's arguments as parsed JSON (a map for an object), since templates
   *     read them as a value, not as the JSON string the API carries
   */
  public record ToolCall(String id, String name, Object arguments) {
    public ToolCall {
      Objects.requireNonNull(name, "name");
    }
  }
}
