package io.kvrouter.preprocess;

import java.util.Objects;

/**
 * One message of a chat conversation as the chat template sees it: a role ({@code system}, {@code
 * user}, {@code assistant}, {@code tool}, ...) and its text content.
 */
public record ChatMessage(String role, String content) {
  public ChatMessage {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(content, "content");
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
}
