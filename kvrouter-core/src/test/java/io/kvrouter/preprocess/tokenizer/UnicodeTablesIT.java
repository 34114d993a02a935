package io.kvrouter.preprocess.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link UnicodeTables} against the Rust library itself: for every code point, the regex classes
 * the byte-level BPE patterns use match exactly where the tables say, whatever the JDK's Unicode
 * version. If the bundled Rust library moves to another Unicode version, this fails, and {@code
 * scripts/unicode-tables} must be rerun with the matching ICU4J.
 *
 * <p>Code points of planes 0 to 3 and 14, where every assigned one lies (planes 4 to 13 are empty
 * and 15 and 16 are private use), about 330,000; an integration test, since the Rust library takes
 * a second or so per class.
 */
class UnicodeTablesIT {
  @TempDir Path dir;

  @Test
  void versionsAreTheRustLibrarys() {
    assertThat(UnicodeTables.VERSION).isEqualTo("16.0.0");
    assertThat(UnicodeTables.NFC_VERSION).isEqualTo("9.0.0");
    assertThat(UnicodeTables.type(0x1FAF6)).isEqualTo((int) Character.OTHER_SYMBOL);
    assertThat(UnicodeTables.type(0x11F50)).isEqualTo((int) Character.DECIMAL_DIGIT_NUMBER);
    assertThat(UnicodeTables.type(0x10940)).isEqualTo((int) Character.UNASSIGNED); // 17.0
    assertThat(UnicodeTables.knownToNfc(0x07FD)).isFalse(); // NKo, Unicode 11
    assertThat(UnicodeTables.knownToNfc(0x0301)).isTrue();
    assertThat(UnicodeTables.type('A')).isEqualTo((int) Character.UPPERCASE_LETTER);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "\\p{Lu}", "\\p{Ll}", "\\p{Lt}", "\\p{Lm}", "\\p{Lo}", "\\p{M}", "\\p{N}", "\\p{P}",
        "\\p{S}", "\\s"
      })
  void classMatchesWhatTheRustRegexEngineMatches(String regex) throws IOException {
    StringBuilder all = new StringBuilder();
    for (int cp = 0; cp <= 0xEFFFF; cp = cp == 0x3FFFF ? 0xE0000 : cp + 1) {
      if (Character.getType(cp) != Character.SURROGATE) {
        all.appendCodePoint(cp);
      }
    }
    String kept;
    try (HfTokenizer rust = RustProbes.removing(regex, dir)) {
      kept = rust.decode(rust.encode(all.toString()));
    }
    IntPredicate ours = predicate(regex);
    List<String> wrong = new ArrayList<>();
    int j = 0;
    for (int i = 0; i < all.length(); ) {
      int cp = all.codePointAt(i);
      boolean removed = j >= kept.length() || kept.codePointAt(j) != cp;
      if (!removed) {
        j += Character.charCount(cp);
      }
      if (removed != ours.test(cp) && wrong.size() < 20) {
        wrong.add(
            Integer.toHexString(cp) + (removed ? " matched by Rust" : " not matched by Rust"));
      }
      i += Character.charCount(cp);
    }
    assertThat(j).as("everything kept was walked").isEqualTo(kept.length());
    assertThat(wrong).as(regex).isEmpty();
  }

  private static IntPredicate predicate(String regex) {
    return switch (regex) {
      case "\\p{Lu}" -> is(Character.UPPERCASE_LETTER);
      case "\\p{Ll}" -> is(Character.LOWERCASE_LETTER);
      case "\\p{Lt}" -> is(Character.TITLECASE_LETTER);
      case "\\p{Lm}" -> is(Character.MODIFIER_LETTER);
      case "\\p{Lo}" -> is(Character.OTHER_LETTER);
      case "\\p{L}" ->
          is(
              Character.UPPERCASE_LETTER,
              Character.LOWERCASE_LETTER,
              Character.TITLECASE_LETTER,
              Character.MODIFIER_LETTER,
              Character.OTHER_LETTER);
      case "\\p{M}" ->
          is(
              Character.NON_SPACING_MARK,
              Character.ENCLOSING_MARK,
              Character.COMBINING_SPACING_MARK);
      case "\\p{N}" ->
          is(Character.DECIMAL_DIGIT_NUMBER, Character.LETTER_NUMBER, Character.OTHER_NUMBER);
      case "\\p{P}" ->
          is(
              Character.CONNECTOR_PUNCTUATION,
              Character.DASH_PUNCTUATION,
              Character.START_PUNCTUATION,
              Character.END_PUNCTUATION,
              Character.INITIAL_QUOTE_PUNCTUATION,
              Character.FINAL_QUOTE_PUNCTUATION,
              Character.OTHER_PUNCTUATION);
      case "\\p{S}" ->
          is(
              Character.MATH_SYMBOL,
              Character.CURRENCY_SYMBOL,
              Character.MODIFIER_SYMBOL,
              Character.OTHER_SYMBOL);
      case "\\s" ->
          // White_Space: the separators and the controls \t to \r and NEL, as the JDK derives it
          is(Character.SPACE_SEPARATOR, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR)
              .or(cp -> (cp >= '\t' && cp <= '\r') || cp == 0x85);
      default -> throw new IllegalArgumentException(regex);
    };
  }

  private static IntPredicate is(int... types) {
    return cp -> {
      int type = UnicodeTables.type(cp);
      for (int t : types) {
        if (t == type) {
          return true;
        }
      }
      return false;
    };
  }
}
