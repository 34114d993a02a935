package io.kvrouter.preprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class StopStringMatcherTest {

  /** What a stream must produce: the text before the first stop string generated, or all. */
  private record Expected(String text, boolean stopped) {}

  /** Grows the text one character at a time and stops when some stop string is a suffix. */
  private static Expected reference(String text, List<String> stops) {
    for (int end = 1; end <= text.length(); end++) {
      String sofar = text.substring(0, end);
      String longest = null;
      for (String s : stops) {
        if (sofar.endsWith(s) && (longest == null || s.length() > longest.length())) {
          longest = s;
        }
      }
      if (longest != null) {
        return new Expected(sofar.substring(0, end - longest.length()), true);
      }
    }
    return new Expected(text, false);
  }

  /** Streams {@code text} cut at the positions whose bit is set in {@code cuts}. */
  private static Expected stream(String text, List<String> stops, long cuts) {
    StopStringMatcher m = new StopStringMatcher(stops);
    StringBuilder out = new StringBuilder();
    Expected ref = reference(text, stops);
    int start = 0;
    for (int i = 1; i <= text.length(); i++) {
      boolean cut = i == text.length() || (cuts & (1L << (i - 1))) != 0;
      if (!cut) {
        continue;
      }
      out.append(m.accept(text.substring(start, i)));
      start = i;
      // never emits anything that is not part of the final answer
      assertThat(ref.text()).startsWith(out.toString());
    }
    boolean stopped = m.matched();
    out.append(m.finish());
    return new Expected(out.toString(), stopped);
  }

  @Test
  void everySplitOfShortStringsMatchesTheReference() {
    List<List<String>> stopSets =
        List.of(
            List.of("abc"),
            List.of("aab"),
            List.of("aa", "ab"),
            List.of("b", "abab"),
            List.of("\n\n", "END"),
            List.of("🙂x"),
            List.of());
    List<String> texts =
        List.of(
            "xxabcxx",
            "aaab",
            "ababab",
            "aaaab",
            "abcabc",
            "xyz",
            "ab",
            "a",
            "",
            "line\n\nnext",
            "END",
            "EN",
            "x🙂x🙂",
            "aabaab",
            "text\nEND\n\n");
    int checked = 0;
    for (List<String> stops : stopSets) {
      for (String text : texts) {
        Expected ref = reference(text, stops);
        int splits = Math.max(0, text.length() - 1);
        for (long cuts = 0; cuts < (1L << splits); cuts++) {
          assertThat(stream(text, stops, cuts))
              .as("text %s stops %s cuts %s", text, stops, Long.toBinaryString(cuts))
              .isEqualTo(ref);
          checked++;
        }
      }
    }
    assertThat(checked).isGreaterThan(2000);
  }

  @Test
  void randomTextsOverASmallAlphabet() {
    Random random = new Random(1234);
    for (int trial = 0; trial < 3000; trial++) {
      List<String> stops = new ArrayList<>();
      int n = 1 + random.nextInt(3);
      for (int i = 0; i < n; i++) {
        stops.add(randomString(random, 1 + random.nextInt(4)));
      }
      String text = randomString(random, random.nextInt(14));
      long cuts = random.nextLong();
      assertThat(stream(text, stops, cuts))
          .as("text %s stops %s", text, stops)
          .isEqualTo(reference(text, stops));
    }
  }

  @Test
  void holdsBackOnlyWhatCouldStillBecomeAStopString() {
    StopStringMatcher m = new StopStringMatcher(List.of("</answer>"));
    assertThat(m.accept("The result is 4</ans")).isEqualTo("The result is 4");
    assertThat(m.accept("wer")).isEmpty();
    assertThat(m.matched()).isFalse();
    assertThat(m.accept("! more")).isEqualTo("</answer! more");
    assertThat(m.accept("</answer> tail")).isEmpty();
    assertThat(m.matched()).isTrue();
    assertThat(m.matchedStop()).contains("</answer>");
    assertThat(m.accept("anything")).isEmpty();
    assertThat(m.finish()).isEmpty();
  }

  @Test
  void finishReleasesHeldText() {
    StopStringMatcher m = new StopStringMatcher(List.of("STOP"));
    assertThat(m.accept("go ST")).isEqualTo("go ");
    assertThat(m.finish()).isEqualTo("ST");
    assertThat(m.matched()).isFalse();
    assertThat(m.matchedStop()).isEmpty();
  }

  @Test
  void theStopStringGeneratedFirstWins() {
    StopStringMatcher m = new StopStringMatcher(List.of("world", "lo w"));
    assertThat(m.accept("hello world")).isEqualTo("hel");
    assertThat(m.matchedStop()).contains("lo w");
    // "b" is complete before "abab" is, whatever the chunking
    StopStringMatcher n = new StopStringMatcher(List.of("abab", "b"));
    assertThat(n.accept("abab")).isEqualTo("a");
    assertThat(n.matchedStop()).contains("b");
    // same end: the longer one
    StopStringMatcher o = new StopStringMatcher(List.of("c", "abc"));
    assertThat(o.accept("xab")).isEqualTo("x");
    assertThat(o.accept("c")).isEmpty();
    assertThat(o.matchedStop()).contains("abc");
  }

  @Test
  void noStopsPassesTextThrough() {
    StopStringMatcher m = new StopStringMatcher(List.of());
    assertThat(m.accept("abc")).isEqualTo("abc");
    assertThat(m.finish()).isEmpty();
  }

  @Test
  void emptyStopStringsAreRejected() {
    assertThatThrownBy(() -> new StopStringMatcher(List.of("a", "")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
  }

  private static String randomString(Random random, int length) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < length; i++) {
      sb.append("ab\n".charAt(random.nextInt(3)));
    }
    return sb.toString();
  }
}
