package io.kvrouter.preprocess.template;

import io.kvrouter.preprocess.ChatMessage;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** The demo ChatML template, written out in Java (no template engine). */
final class ChatMlTemplate implements ChatTemplate {

  static final ChatMlTemplate INSTANCE = new ChatMlTemplate();

  private ChatMlTemplate() {}

  @Override
  public String render(
      List<ChatMessage> messages, boolean addGenerationPrompt, Map<String, ?> extraVariables) {
    Objects.requireNonNull(messages, "messages");
    StringBuilder sb = new StringBuilder();
    for (ChatMessage m : messages) {
      sb.append("<|im_start|>").append(m.role()).append('\n');
      sb.append(m.text()).append("<|im_end|>\n");
    }
    if (addGenerationPrompt) {
      sb.append("<|im_start|>assistant\n");
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return "ChatMlTemplate";
  }
}
