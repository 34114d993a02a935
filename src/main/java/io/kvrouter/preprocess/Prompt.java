package io.kvrouter.preprocess;

import io.kvrouter.preprocess.ChatMessage;
import java.util.List;
import java.util.Objects;

/** What the model is asked to continue: a chat rendered through its template, or plain text. */
public sealed interface Prompt {

  /** A conversation, rendered by the model's chat template. */
  record Chat(List<ChatMessage> messages, boolean addGenerationPrompt) implements Prompt {
    public Chat {
      messages = List.copyOf(messages);
    }
  }

  /** Text tokenized as it is (the completions API). */
  record Text(String text) implements Prompt {
    public Text {
      Objects.requireNonNull(text, "text");
    }
  }
}
