package io.kvrouter.preprocess.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Nfc} against the Rust library's NFC, whatever the JDK's Unicode version. */
class NfcTest {
  @TempDir Path dir;

  /**
   * Texts where NFC versions can differ: every code point the JDK's NFC changes, every mark (by
   * {@link UnicodeTables}) doubled and beside marks of lower and higher combining class (U+0316
   * below, U+0301 above), and every code point's canonical decomposition.
   */
  private static List<String> texts() {
    List<String> texts = new ArrayList<>();
    for (int cp = 0; cp <= Character.MAX_CODE_POINT; cp++) {
      int type = UnicodeTables.type(cp);
      if (cp == '\n' || type == Character.SURROGATE) {
        continue;
      }
      String c = Character.toString(cp);
      String decomposed = Normalizer.normalize(c, Normalizer.Form.NFD);
      if (!Normalizer.isNormalized(c, Normalizer.Form.NFC) || !decomposed.equals(c)) {
        texts.add(c);
        texts.add(decomposed);
      }
      if (type == Character.NON_SPACING_MARK
          || type == Character.COMBINING_SPACING_MARK
          || type == Character.ENCLOSING_MARK) {
        texts.add("a" + c + c);
        texts.add("a" + c + "\u0301");
        texts.add("a\u0301" + c);
        texts.add("a" + c + "\u0316");
        texts.add("a\u0316" + c);
      }
    }
    return texts;
  }

  @Test
  void normalizesAsTheRustLibraryDoes() throws IOException {
    List<String> texts = texts();
    List<String> differing = new ArrayList<>();
    try (HfTokenizer rust = RustProbes.nfc(dir)) {
      for (int from = 0; from < texts.size(); from += 2000) {
        List<String> batch = texts.subList(from, Math.min(texts.size(), from + 2000));
        // '\n' is a starter of every version: the texts normalize apart
        String[] expected = rust.decode(rust.encode(String.join("\n", batch))).split("\n", -1);
        assertThat(expected).hasSameSizeAs(batch);
        for (int i = 0; i < batch.size(); i++) {
          if (!Nfc.normalize(batch.get(i)).equals(expected[i]) && differing.size() < 20) {
            differing.add(hex(batch.get(i)) + " -> " + hex(expected[i]));
          }
        }
      }
    }
    assertThat(texts.size()).isGreaterThan(20_000);
    assertThat(differing).isEmpty();
  }

  @Test
  void leavesNormalizedTextAsItIs() {
    String text = "caf\u00e9 \u0B9A\u0BCA";
    assertThat(Nfc.normalize(text)).isSameAs(text);
    assertThat(Nfc.normalize("cafe\u0301")).isEqualTo("caf\u00e9");
  }

  private static String hex(String s) {
    StringBuilder out = new StringBuilder();
    s.codePoints().forEach(cp -> out.append(Integer.toHexString(cp)).append(' '));
    return out.toString().trim();
  }
}
