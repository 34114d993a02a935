package io.kvrouter.preprocess.tokenizer;

import java.util.Arrays;
import java.util.Objects;

/**
 * Turns a stream of generated token ids into a stream of text, one chunk at a time, for one request
 * (not thread-safe: one instance per stream).
 *
 * <p>It follows the prefix-window technique of Hugging Face's {@code DecodeStream}, vLLM and TGI:
 * every step decodes a small window of ids that starts a few already-emitted ids back, and emits
 * what the decoded window has beyond the text already emitted. The left context keeps decoder rules
 * that look at neighbours (SentencePiece's leading-space handling, byte-fallback tokens) giving the
 * same text as a full decode. A multi-byte UTF-8 character whose bytes are not all there yet
 * decodes to U+FFFD at the end of the window; that tail is held back until the character is
 * complete, while the complete text before it is emitted at once. {@link #finish()} flushes what is
 * left.
 *
 * <pre>
 *   ids:  ... emitted, out of the window ... | context | ... held ... |
 *                                            ^ window  ^ clean       ^ end
 * </pre>
 *
 * "clean" is the last id boundary where the decoded window ended in a complete character. The
 * window start follows it at most {@link #MAX_PREFIX_TOKENS} ids behind, at an id where no
 * character is cut (the decoded context does not begin with U+FFFD).
 *
 * <p>Guarantee: for valid UTF-8 output, the concatenation of everything returned equals {@code
 * tokenizer.decode(allIds, skipSpecialTokens)}, however the ids are cut into chunks. Cost per step:
 * a few decodes of at most {@link #MAX_PREFIX_TOKENS} + {@link #MAX_HELD_TOKENS} ids plus the new
 * chunk, independent of how long the output already is. To keep that bound, when more than {@link
 * #MAX_HELD_TOKENS} ids pass without any id boundary where the text is complete (the model really
 * produced invalid UTF-8, which a full decode shows as U+FFFD too), the replacement characters are
 * emitted as they are.
 *
 * <p>Invalid output and byte fallback: a byte-fallback decoder (SentencePiece's {@code <0xF0>}
 * tokens, as in Gemma) turns a run of byte tokens that is not valid UTF-8 as a whole into one
 * U+FFFD per token, complete characters at its start included. Those characters were emitted as
 * soon as they were complete and cannot be taken back, so when the model breaks a character later
 * in the same run, the stream can differ from the full decode there.
 */
public final class IncrementalDetokenizer {

  /** At most this many already-emitted ids are decoded again as left context. */
  public static final int MAX_PREFIX_TOKENS = 6;

  /**
   * At most this many ids are held back without an id boundary where the text is complete. A
   * character is at most 4 bytes and every id carries at least one byte, so valid text has such a
   * boundary at least every 4 ids.
   */
  public static final int MAX_HELD_TOKENS = 8;

  /** How far back from the end a clean id boundary is searched for when the end is not clean. */
  private static final int SEARCH_BACK = 4;

  private static final char REPLACEMENT = '\uFFFD';

  private final Tokenizer tokenizer;
  private final boolean skipSpecialTokens;

  private int[] ids = new int[32];
  private int size; // valid entries in ids
  private int window; // index in ids where the decode window starts
  private int clean; // index in ids (>= window) where the decoded window ends in a whole character
  private int cleanLength; // length of decode(ids[window, clean))
  private int emitted; // characters of decode(ids[window, size)) already returned
  private boolean finished;

  public IncrementalDetokenizer(Tokenizer tokenizer, boolean skipSpecialTokens) {
    this.tokenizer = Objects.requireNonNull(tokenizer, "tokenizer");
    this.skipSpecialTokens = skipSpecialTokens;
  }

  /** Feeds one id; returns the text that can be emitted now (possibly empty). */
  public String add(int id) {
    return add(new int[] {id}, 0, 1);
  }

  /** Feeds a chunk of ids; returns the text that can be emitted now (possibly empty). */
  public String add(int[] chunk) {
    return add(chunk, 0, chunk.length);
  }

  /** Feeds {@code chunk[from, to)}; returns the text that can be emitted now (possibly empty). */
  public String add(int[] chunk, int from, int to) {
    Objects.checkFromToIndex(from, to, chunk.length);
    if (finished) {
      throw new IllegalStateException("add after finish()");
    }
    if (from == to) {
      return "";
    }
    append(chunk, from, to);
    String text = decode(window, size);
    int tail = trailingReplacements(text);
    String out = take(text, text.length() - tail);
    if (tail == 0) {
      markClean(size, text.length());
    } else if (size - clean > SEARCH_BACK) {
      String upToBoundary = emitToCleanBoundary();
      if (upToBoundary != null) {
        out += upToBoundary;
      } else if (size - clean > MAX_HELD_TOKENS) {
        // no complete character for too long: this is invalid UTF-8, emit it as decoded
        out += take(text, text.length());
        markClean(size, text.length());
      }
    }
    return out;
  }

  /** Ends the stream: returns whatever is still held back (possibly empty). */
  public String finish() {
    if (finished) {
      return "";
    }
    finished = true;
    if (clean == size) {
      return "";
    }
    String text = decode(window, size);
    return take(text, text.length());
  }

  /** Returns text[emitted, end) and counts it as emitted. */
  private String take(String text, int end) {
    if (end <= emitted) {
      return "";
    }
    String out = text.substring(emitted, end);
    emitted = end;
    return out;
  }

  /**
   * Looks for an id boundary shortly before the end where the decoded window is complete. When
   * there is one, marks it clean and returns the text up to it not emitted yet, else returns null.
   * That text can be new: with a byte-fallback decoder, an open run of byte tokens that ends inside
   * a character decodes to U+FFFD as a whole, hiding the complete characters at its start.
   */
  private String emitToCleanBoundary() {
    for (int k = size - 1; k > clean && k >= size - SEARCH_BACK; k--) {
      String text = decode(window, k);
      if (trailingReplacements(text) == 0) {
        String out = take(text, text.length());
        markClean(k, text.length());
        return out;
      }
    }
    return null;
  }

  /**
   * Records that decode(ids[window, boundary)) has {@code length} characters and ends in a whole
   * character, then slides the window start to at most {@link #MAX_PREFIX_TOKENS} ids before it.
   */
  private void markClean(int boundary, int length) {
    clean = boundary;
    cleanLength = length;
    int first = boundary - MAX_PREFIX_TOKENS;
    if (first <= window) {
      return;
    }
    int firstContext = -1;
    for (int start = first; start < boundary; start++) {
      // A start inside a character cut into byte tokens is not safe: a byte-fallback decoder
      // (SentencePiece's "<0xF0>" tokens, as in Gemma) turns a whole run of byte tokens that is
      // not valid UTF-8 into one U+FFFD per byte, so the characters of that run past the boundary
      // would decode differently. Such a start makes the context begin with U+FFFD; the next one
      // is tried. A character has at most 4 bytes, so valid text has a safe start in reach.
      String context = decode(start, boundary);
      if (context.isEmpty() || context.charAt(0) != REPLACEMENT) {
        moveWindow(start, context.length());
        return;
      }
      if (start == first) {
        firstContext = context.length();
      }
    }
    // The output itself has replacement characters here (invalid UTF-8): no start is better.
    moveWindow(first, firstContext);
  }

  /**
   * Moves the window start to {@code start}, where decode(ids[start, clean)) has {@code context}
   * characters. Text past the clean boundary does not depend on where a safe window starts, so the
   * characters emitted past it carry over; only the context part changes.
   */
  private void moveWindow(int start, int context) {
    emitted = context + (emitted - cleanLength);
    cleanLength = context;
    window = start;
  }

  private String decode(int from, int to) {
    return tokenizer.decode(ids, from, to, skipSpecialTokens);
  }

  private static int trailingReplacements(String text) {
    int n = 0;
    for (int i = text.length() - 1; i >= 0 && text.charAt(i) == REPLACEMENT; i--) {
      n++;
    }
    return n;
  }

  private void append(int[] chunk, int from, int to) {
    int n = to - from;
    if (window > 0 && (size + n > ids.length || window >= ids.length / 2)) {
      // Drop ids before the window: no later decode reads them.
      System.arraycopy(ids, window, ids, 0, size - window);
      size -= window;
      clean -= window;
      window = 0;
    }
    if (size + n > ids.length) {
      ids = Arrays.copyOf(ids, Math.max(ids.length * 2, size + n));
    }
    System.arraycopy(chunk, from, ids, size, n);
    size += n;
  }
}
