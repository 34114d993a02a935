package io.kvrouter.preprocess.parse;

import java.util.List;

/**
 * Splits generated text at {@code <think>} and {@code </think>}: what is inside is reasoning, what
 * is outside is content; the tags themselves go to neither. A tag cut across two deltas is held
 * back until it is whole.
 *
 * <p>Whether the output starts inside a think block is read from the prompt, not guessed per model:
 * a template that opens the block itself (DeepSeek R1, or Qwen3's with thinking forced) leaves an
 * unclosed {@code <think>} at the end of the prompt, and the model then writes only the reasoning
 * and the closing tag. Qwen3 with {@code enable_thinking=false} closes an empty block in the
 * prompt, so its output is all content unless it opens a new block.
 */
final class ThinkTagReasoning {
  static final String OPEN = "<think>";
  static final String CLOSE = "</think>";

  private final StringBuilder held = new StringBuilder();
  private boolean inside;

  ThinkTagReasoning(boolean startsInside) {
    this.inside = startsInside;
  }

  /** Whether generation after {@code prompt} starts inside a think block. */
  static boolean promptLeavesOpen(String prompt) {
    return prompt.lastIndexOf(OPEN) > prompt.lastIndexOf(CLOSE);
  }

  void accept(String text, List<OutputPiece> out) {
    held.append(text);
    while (true) {
      String tag = inside ? CLOSE : OPEN;
      int at = held.indexOf(tag);
      if (at < 0) {
        int keep = HeldText.partialMarkerAtEnd(held, tag);
        emit(held.substring(0, held.length() - keep), out);
        held.delete(0, held.length() - keep);
        return;
      }
      emit(held.substring(0, at), out);
      held.delete(0, at + tag.length());
      inside = !inside;
    }
  }

  void finish(List<OutputPiece> out) {
    emit(held.toString(), out);
    held.setLength(0);
  }

  private void emit(String text, List<OutputPiece> out) {
    if (!text.isEmpty()) {
      out.add(inside ? new OutputPiece.Reasoning(text) : new OutputPiece.Content(text));
    }
  }
}
