package io.kvrouter.preprocess;

import io.kvrouter.protocol.InvalidRequestException;

/**
 * {@code continue_final_message}: the model goes on writing the conversation's last message instead
 * of starting a new one. The template renders the conversation (without a generation prompt) and
 * the text is cut right after the last message's content, as Hugging Face's {@code
 * apply_chat_template} cuts it: at the last place the content (stripped of surrounding whitespace)
 * appears, keeping its trailing whitespace only when the template kept it too.
 */
final class FinalMessageContinuation {
  private FinalMessageContinuation() {}

  static String cut(String rendered, ChatMessage last) {
    String content =
        last.content() instanceof ChatMessage.Content.Parts parts && !parts.texts().isEmpty()
            ? parts.texts().get(parts.texts().size() - 1)
            : last.text();
    String stripped = strip(content, true, true);
    int at = rendered.lastIndexOf(stripped);
    if (stripped.isEmpty() || at < 0) {
      throw new InvalidRequestException(
          "'continue_final_message' is set but the chat template does not write the last"
              + " message's content into the prompt, so there is nothing to continue",
          "continue_final_message");
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
