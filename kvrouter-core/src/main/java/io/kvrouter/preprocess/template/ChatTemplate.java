package io.kvrouter.preprocess.template;

import io.kvrouter.preprocess.ChatMessage;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * Renders a chat conversation into the prompt text the model was trained on.
 *
 * <p>Implementations are immutable and safe to use from many threads. Rendering is CPU work (pure
 * and synchronous, no Vert.x or Netty). A conversation the template cannot render raises {@link
 * ChatTemplateException} with a message that says what failed; a template never silently produces a
 * different prompt.
 */
public interface ChatTemplate {

  /**
   * Renders {@code messages}.
   *
   * @param addGenerationPrompt when true, the prompt ends with the header that starts the
   *     assistant's reply
   * @param extraVariables more template variables (for example {@code tools}, {@code
   *     enable_thinking}); values are Java maps, lists, strings, numbers, booleans or null
   * @throws ChatTemplateException when the template fails or rejects the conversation
   */
  String render(
      List<ChatMessage> messages, boolean addGenerationPrompt, Map<String, ?> extraVariables);

  /** Renders {@code messages} with no extra variables. */
  default String render(List<ChatMessage> messages, boolean addGenerationPrompt) {
    return render(messages, addGenerationPrompt, Map.of());
  }

  /**
   * Whether the template gets a message's content as OpenAI's list of text parts rather than one
   * string (vLLM's "openai" content format); what {@code continue_final_message} looks for then is
   * the last part's text.
   */
  default boolean readsContentParts() {
    return false;
  }

  /** The same template with {@code clock} as the time {@code strftime_now} reads. */
  default ChatTemplate withClock(Clock clock) {
    return this;
  }

  /** False for the stand-in of a model that has no chat template ({@link #missing}). */
  default boolean isAvailable() {
    return true;
  }

  /**
   * A stand-in for a model without a chat template: {@link #render} always throws {@link
   * ChatTemplateException} ({@link ChatTemplateException.Reason#MISSING}) with {@code message}.
   */
  static ChatTemplate missing(String message) {
    return new MissingChatTemplate(message);
  }

  /**
   * The demo ChatML template: {@code <|im_start|>{role}\n{content}<|im_end|>\n} per message, and
   * {@code <|im_start|>assistant\n} when a generation prompt is asked for.
   */
  static ChatTemplate chatMl() {
    return ChatMlTemplate.INSTANCE;
  }

  /**
   * A Hugging Face chat template ({@code tokenizer_config.json}'s {@code chat_template}), rendered
   * by our Jinja2 interpreter with Python's semantics, as transformers' {@code apply_chat_template}
   * renders it: {@code trim_blocks}, {@code lstrip_blocks}, the variables {@code messages}, {@code
   * add_generation_prompt}, {@code bos_token} and {@code eos_token}, a {@code raise_exception}
   * function and a Python-style {@code tojson} filter.
   *
   * @param source the template text
   * @param bosToken the tokenizer's bos token text, or null when it has none
   * @param eosToken the tokenizer's eos token text, or null when it has none
   * @throws ChatTemplateException when the template does not parse
   */
  static ChatTemplate jinja(String source, String bosToken, String eosToken) {
    return JinjaChatTemplate.create(source, bosToken, eosToken);
  }
}
