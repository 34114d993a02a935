package io.kvrouter.preprocess.template;

import io.kvrouter.preprocess.ChatMessage;
import java.util.List;
import java.util.Map;

/** Stands in for the template of a model that has none: every render fails with the reason. */
final class MissingChatTemplate implements ChatTemplate {
  private final String message;

  MissingChatTemplate(String message) {
    this.message = message;
  }

  @Override
  public String render(
      List<ChatMessage> messages, boolean addGenerationPrompt, Map<String, ?> extraVariables) {
    throw new ChatTemplateException(message, ChatTemplateException.Reason.MISSING);
  }

  @Override
  public boolean isAvailable() {
    return false;
  }

  @Override
  public String toString() {
    return "MissingChatTemplate[" + message + "]";
  }
}
