package io.kvrouter.preprocess.parse;

/** Text helpers for parsers that must not emit the first characters of a marker too early. */
final class HeldText {
  private HeldText() {}

  /**
   * How many characters at the end of {@code text} could be the start of {@code marker} (a proper
   * prefix of it), and so must be held back until more text shows whether they are.
   */
  static int partialMarkerAtEnd(CharSequence text, String marker) {
    int longest = Math.min(marker.length() - 1, text.length());
    for (int n = longest; n > 0; n--) {
      if (marker.regionMatches(0, text.toString(), text.length() - n, n)) {
        return n;
      }
    }
    return 0;
  }
}
