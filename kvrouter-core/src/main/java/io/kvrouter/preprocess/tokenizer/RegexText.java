package io.kvrouter.preprocess.tokenizer;

import java.util.BitSet;

/**
 * A text as the JDK's regex engine must see it for {@code \p{L}}, {@code \p{N}}, {@code \s} and the
 * other category classes to follow {@link UnicodeTables} instead of the JDK's own Unicode version:
 * every code point whose category differs between the two ("drifted": on JDK 17, the characters
 * added in Unicode 14 to 16, such as U+1FAF6 or the Kawi digits) is replaced by a stand-in, a BMP
 * code point that both give the category {@link UnicodeTables} gives the original. The regex then
 * classifies each position as the Rust library does, and match positions are mapped back to the
 * original text ({@link #original}).
 *
 * <p>Why not rewrite the pattern's classes into explicit ranges: the JDK tests a character class of
 * ranges one range after another, so {@code \p{L}} as its 700 ranges would slow every position of
 * every prompt; here text without drifted code points (all text, on a JDK of the same Unicode
 * version) costs one comparison per character. {@link SplitPattern} refuses patterns where a
 * stand-in could change a match (one that names a drifted code point or a stand-in literally).
 */
final class RegexText {
  /** Code points whose JDK category is not the {@link UnicodeTables} one. */
  private static final BitSet DRIFTED = new BitSet();

  /** No char below this is (part of) a drifted code point. */
  private static final char FIRST_DRIFTED;

  /** The stand-in for each category (indexed by {@link Character#getType} number), or -1. */
  private static final int[] STAND_IN = new int[32];

  static {
    for (int cp = 0; cp <= Character.MAX_CODE_POINT; cp++) {
      if (Character.getType(cp) != UnicodeTables.type(cp)) {
        DRIFTED.set(cp);
      }
    }
    int first = DRIFTED.nextSetBit(0);
    FIRST_DRIFTED =
        first < 0 ? Character.MAX_VALUE : (char) Math.min(first, Character.MIN_HIGH_SURROGATE);
    java.util.Arrays.fill(STAND_IN, -1);
    // Far from the ASCII, Latin and CJK characters that patterns name; surrogates are never used.
    for (int cp : new int[] {0xA000, 0x80}) {
      for (int c = cp; c <= 0xFFFF; c++) {
        int type = Character.getType(c);
        if (STAND_IN[type] < 0 && !DRIFTED.get(c) && type != Character.SURROGATE) {
          STAND_IN[type] = c;
        }
      }
    }
  }

  /** The text to match. */
  final String text;

  /** For each index of {@link #text} (and its length), the index in the original; null: same. */
  private final int[] origin;

  private RegexText(String text, int[] origin) {
    this.text = text;
    this.origin = origin;
  }

  static RegexText of(String text) {
    int n = text.length();
    int i = 0;
    while (i < n && !driftedAt(text, i)) {
      i++;
    }
    if (i == n) {
      return new RegexText(text, null);
    }
    StringBuilder mapped = new StringBuilder(n);
    int[] origin = new int[n + 1];
    mapped.append(text, 0, i);
    for (int k = 0; k < i; k++) {
      origin[k] = k;
    }
    while (i < n) {
      int cp = text.codePointAt(i);
      int width = Character.charCount(cp);
      if (driftedAt(text, i)) {
        origin[mapped.length()] = i;
        mapped.append((char) STAND_IN[UnicodeTables.type(cp)]);
      } else {
        for (int k = 0; k < width; k++) {
          origin[mapped.length()] = i + k;
          mapped.append(text.charAt(i + k));
        }
      }
      i += width;
    }
    origin[mapped.length()] = n;
    return new RegexText(mapped.toString(), origin);
  }

  private static boolean driftedAt(String text, int i) {
    return text.charAt(i) >= FIRST_DRIFTED && DRIFTED.get(text.codePointAt(i));
  }

  /** The index in the original text of index {@code i} of {@link #text}. */
  int original(int i) {
    return origin == null ? i : origin[i];
  }

  /** True when some code point in {@code [first, last]} is drifted. */
  static boolean anyDrifted(int first, int last) {
    int next = DRIFTED.nextSetBit(first);
    return next >= 0 && next <= last;
  }

  /**
   * The stand-ins in use: those of the categories some drifted code point has; a missing one is -1
   * (then {@link SplitPattern} keeps the pattern with the Rust library).
   */
  static int[] standInsInUse() {
    BitSet types = new BitSet();
    for (int cp = DRIFTED.nextSetBit(0); cp >= 0; cp = DRIFTED.nextSetBit(cp + 1)) {
      types.set(UnicodeTables.type(cp));
    }
    return types.stream().map(t -> STAND_IN[t]).toArray();
  }
}
