package io.kvrouter.preprocess;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/** What the model is asked to continue: a chat rendered through its template, text, or tokens. */
public sealed interface Prompt {

  /**
   * A conversation, rendered by the model's chat template.
   *
   * @param continueFinalMessage the prompt ends inside the last message (the model continues it)
   *     instead of after it; excludes {@code addGenerationPrompt}
   * @param tools the tool schemas for the template's {@code tools} variable, or null for none
   * @param templateVariables more template variables ({@code chat_template_kwargs}, such as {@code
   *     enable_thinking})
   */
  record Chat(
      List<ChatMessage> messages,
      boolean addGenerationPrompt,
      boolean continueFinalMessage,
      List<Map<String, Object>> tools,
      Map<String, Object> templateVariables)
      implements Prompt {
    public Chat {
      messages = List.copyOf(messages);
      templateVariables = templateVariables == null ? Map.of() : templateVariables;
      if (addGenerationPrompt && continueFinalMessage) {
        throw new IllegalArgumentException(
            "addGenerationPrompt and continueFinalMessage exclude each other");
      }
    }

    /** A conversation with a generation prompt and nothing else. */
    public Chat(List<ChatMessage> messages) {
      this(messages, true, false, null, Map.of());
    }
  }

  /**
   * Text tokenized as it is (the completions API).
   *
   * @param addSpecialTokens the tokenizer adds the model's own tokens around the text (Llama's
   *     BOS), as Hugging Face's {@code add_special_tokens=True} does
   */
  record Text(String text, boolean addSpecialTokens) implements Prompt {
    public Text {
      Objects.requireNonNull(text, "text");
    }

    public Text(String text) {
      this(text, true);
    }
  }

  /** Token ids sent as they are. */
  record Tokens(int[] ids) implements Prompt {
    public Tokens {
      ids = ids.clone();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Tokens t && java.util.Arrays.equals(ids, t.ids);
    }

    @Override
    public int hashCode() {
      return java.util.Arrays.hashCode(ids);
    }

    @Override
    public String toString() {
      return "Tokens" + java.util.Arrays.toString(ids);
    }
  }
}
