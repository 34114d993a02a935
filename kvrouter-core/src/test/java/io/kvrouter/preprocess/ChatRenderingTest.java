package io.kvrouter.preprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.preprocess.template.ChatTemplate;
import io.kvrouter.protocol.InvalidRequestException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code continue_final_message} where the template gives nothing to cut at (the rendered cases of
 * all nine models are in the chat-request goldens, ChatRequestGoldenIT).
 */
class ChatRenderingTest {
  private static Prompt.Chat continuing(ChatMessage last) {
    return new Prompt.Chat(List.of(ChatMessage.user("Hi"), last), false, true, null, Map.of());
  }

  @Test
  void contentTheTemplateDropsIsRefused() {
    ChatTemplate roles =
        ChatTemplate.jinja("{% for m in messages %}<{{ m.role }}>{% endfor %}", null, null);
    assertThatThrownBy(() -> ChatRendering.text(roles, continuing(ChatMessage.assistant("Hello"))))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("does not write the last message's content");
    // an empty content is found at the end: the whole render, nothing cut
    assertThat(ChatRendering.text(roles, continuing(ChatMessage.assistant(""))))
        .isEqualTo("<user><assistant>");
  }

  @Test
  void aPartsTemplateContinuesTheLastPartAndRefusesAMessageWithoutParts() {
    ChatTemplate parts =
        ChatTemplate.jinja(
            "{% for m in messages %}{% for p in m.content %}[{{ p.text }}]{% endfor %}|{% endfor %}",
            null, null);
    ChatMessage twoParts =
        new ChatMessage(
            "assistant",
            new ChatMessage.Content.Parts(List.of("One", "Two")),
            null,
            List.of(),
            null,
            null);
    assertThat(ChatRendering.text(parts, continuing(twoParts))).isEqualTo("[Hi]|[One][Two");
    ChatMessage none = new ChatMessage("assistant", null, null, List.of(), null, null);
    assertThatThrownBy(() -> ChatRendering.text(parts, continuing(none)))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("no text to continue");
  }
}
