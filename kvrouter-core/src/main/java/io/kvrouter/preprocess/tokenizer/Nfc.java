package io.kvrouter.preprocess.tokenizer;

import java.text.Normalizer;

/**
 * NFC as the Rust tokenizers library computes it: with the normalization data of Unicode {@link
 * UnicodeTables#NFC_VERSION} (its normalization crate's tables), whatever the JDK's version.
 *
 * <p>A code point assigned after that version is, to the Rust library, an unassigned character: a
 * starter that decomposes and composes with nothing, so normalization never reaches across it. So
 * the text is cut at every such code point, and each piece between them, which holds only code
 * points of that version, is normalized by the JDK: normalization is stable, so the JDK's newer
 * data gives such text the same NFC as the older version did. JDK 17 (Unicode 13) would otherwise
 * reorder and compose marks added in Unicode 10 to 13, which the Rust library leaves alone.
 */
final class Nfc {
  private Nfc() {}

  static String normalize(String text) {
    if (Normalizer.isNormalized(text, Normalizer.Form.NFC)) {
      // Text in NFC under the JDK's data stays as it is when only some code points may change.
      return text;
    }
    StringBuilder out = new StringBuilder(text.length());
    int piece = 0;
    int i = 0;
    while (i < text.length()) {
      int cp = text.codePointAt(i);
      int next = i + Character.charCount(cp);
      if (!UnicodeTables.knownToNfc(cp)) {
        out.append(Normalizer.normalize(text.substring(piece, i), Normalizer.Form.NFC));
        out.append(text, i, next);
        piece = next;
      }
      i = next;
    }
    if (piece == 0) {
      return Normalizer.normalize(text, Normalizer.Form.NFC);
    }
    return out.append(Normalizer.normalize(text.substring(piece), Normalizer.Form.NFC)).toString();
  }
}
