package io.kvrouter.preprocess;

import io.kvrouter.preprocess.template.ChatTemplate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A chat prompt as text, as vLLM makes it: the template rendered with the request's tools and
 * variables, then, for {@code continue_final_message}, cut after the last message's content ({@link
 * FinalMessageContinuation}).
 */
final class ChatRendering {
  private ChatRendering() {}

  /**
   * @throws io.kvrouter.preprocess.template.ChatTemplateException when the template fails or
   *     rejects the conversation
   * @throws io.kvrouter.protocol.InvalidRequestException when there is nothing to continue
   */
  static String text(ChatTemplate template, Prompt.Chat chat) {
    Map<String, Object> variables = new HashMap<>(chat.templateVariables());
    if (chat.tools() != null) {
      variables.put("tools", chat.tools());
    }
    String rendered = template.render(chat.messages(), chat.addGenerationPrompt(), variables);
    if (!chat.continueFinalMessage()) {
      return rendered;
    }
    List<ChatMessage> messages = chat.messages();
    String last =
        FinalMessageContinuation.finalMessage(
            messages.get(messages.size() - 1), template.readsContentParts());
    return FinalMessageContinuation.cut(rendered, last);
  }
}
