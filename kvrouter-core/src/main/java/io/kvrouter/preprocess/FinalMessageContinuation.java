package io.kvrouter.preprocess;

import io.kvrouter.protocol.InvalidRequestException;
import java.util.List;

/**
 * {@code continue_final_message}: the model goes on writing the conversation's last message instead
 * of starting a new one. The template renders the conversation (without a generation prompt) and
 * the text is cut right after the last message's content, as Hugging Face transformers 4.5x's
 * {@code apply_chat_template} cuts it: at the last place the content (stripped of surrounding
 * whitespace) appears, keeping its trailing whitespace only when the template kept it too. An empty
 * content is found at the very end, so nothing is cut and the whole render is the prompt, as in
 * transformers (a template that closes the assistant turn after it keeps the closing tokens).
 *
 * <p>The content looked for is what the template was given: one string, or for a template that
 * reads content parts, the last part's text (a message without parts has none, which transformers
 * refuses).
 */
final class FinalMessageContinuation {
  private FinalMessageContinuation() {}

  private static final String PARAM = "continue_final_message";

  /** The text transformers looks for: the content as the template saw it. */
  static String finalMessage(ChatMessage last, boolean contentParts) {
    if (!contentParts || last.role().equals("tool")) {
      return last.text();
    }
    List<String> texts =
        last.content() == null
            ? List.of()
            : last.content() instanceof ChatMessage.Content.Parts p
                ? p.texts()
                : List.of(last.content().text());
    if (texts.isEmpty()) {
      throw new InvalidRequestException(
          "'continue_final_message' is set but the last message has no text to continue", PARAM);
    }
    return texts.get(texts.size() - 1);
  }

  static String cut(String rendered, String content) {
    String stripped = strip(content, true, true);
    int at = rendered.lastIndexOf(stripped);
    if (at < 0) {
      throw new InvalidRequestException(
          "'continue_final_message' is set but the chat template does not write the last"
              + " message's content into the prompt, so there is nothing to continue",
          PARAM);
    }
    String leftStripped = strip(content, true, false);
    // the template kept the content whole, trailing whitespace included (and it has no leading
    // whitespace, which would have made the comparison fail in transformers too)
    boolean keptWhole =
        leftStripped.length() == content.length() && rendered.startsWith(content, at);
    int end = at + (keptWhole ? leftStripped.length() : stripped.length());
    return rendered.substring(0, end);
  }

  /** Python's {@code str.strip}, {@code lstrip} or {@code rstrip}: its whitespace, not Java's. */
  private static String strip(String s, boolean left, boolean right) {
    int from = 0;
    int to = s.length();
    while (left && from < to && isPythonSpace(s.charAt(from))) {
      from++;
    }
    while (right && to > from && isPythonSpace(s.charAt(to - 1))) {
      to--;
    }
    return s.substring(from, to);
  }

  private static boolean isPythonSpace(char c) {
    return Character.isWhitespace(c) || Character.isSpaceChar(c) || c == '\u0085';
  }
}
