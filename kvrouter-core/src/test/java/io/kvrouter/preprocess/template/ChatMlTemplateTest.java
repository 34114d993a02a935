package io.kvrouter.preprocess.template;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.preprocess.ChatMessage;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChatMlTemplateTest {

  @Test
  void rendersChatMlExactly() {
    ChatTemplate t = ChatTemplate.chatMl();
    List<ChatMessage> messages =
        List.of(ChatMessage.system("Be brief."), ChatMessage.user("Hi 🙂\nthere"));
    assertThat(t.render(messages, true))
        .isEqualTo(
            "<|im_start|>system\nBe brief.<|im_end|>\n"
                + "<|im_start|>user\nHi 🙂\nthere<|im_end|>\n"
                + "<|im_start|>assistant\n");
    assertThat(t.render(messages, false))
        .isEqualTo(
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi 🙂\nthere<|im_end|>\n");
    assertThat(t.render(List.of(), true)).isEqualTo("<|im_start|>assistant\n");
    assertThat(t.isAvailable()).isTrue();
  }

  @Test
  void missingTemplateFailsOnlyWhenUsed() {
    ChatTemplate t = ChatTemplate.missing("model x has no chat template");
    assertThat(t.isAvailable()).isFalse();
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> t.render(List.of(ChatMessage.user("hi")), true))
        .isInstanceOfSatisfying(
            ChatTemplateException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(ChatTemplateException.Reason.MISSING);
              assertThat(e.isClientError()).isTrue();
            })
        .hasMessage("model x has no chat template");
  }
}
