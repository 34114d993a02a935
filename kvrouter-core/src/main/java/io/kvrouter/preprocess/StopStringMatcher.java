package io.kvrouter.preprocess;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Finds stop strings in a stream of generated text (one instance per stream; not thread-safe).
 *
 * <p>Each {@link #accept} returns the text that is safe to emit now. A suffix that could still
 * become a stop string once more text arrives is held back, so a stop string split across chunks is
 * still caught. When a stop string appears, the text before it is returned, the stop string and
 * everything after it are dropped, and {@link #matched()} turns true: the generation must end
 * there. {@link #finish()} releases the held-back text at the end of a stream that did not stop.
 *
 * <p>Generation stops as soon as a stop string has been generated: of all occurrences, the one that
 * ends first wins (if several end at the same place, the longest). This does not depend on how the
 * text is cut into chunks. Cost per chunk: O(chunk + L) searches per stop string, where L is the
 * longest stop string; the held text is always shorter than L.
 */
public final class StopStringMatcher {

  private final List<String> stops;
  private final int longest;
  private final StringBuilder held = new StringBuilder();
  private String matchedStop;

  /**
   * @param stops the stop strings; may be empty (then text passes straight through)
   * @throws IllegalArgumentException when a stop string is empty
   */
  public StopStringMatcher(Collection<String> stops) {
    Objects.requireNonNull(stops, "stops");
    int max = 0;
    for (String s : stops) {
      Objects.requireNonNull(s, "stop string");
      if (s.isEmpty()) {
        throw new IllegalArgumentException("stop strings must not be empty");
      }
      max = Math.max(max, s.length());
    }
    this.stops = List.copyOf(stops);
    this.longest = max;
  }

  /**
   * Feeds the next chunk of text; returns what can be emitted now (possibly empty). After a match,
   * returns "" for every further chunk.
   */
  public String accept(String chunk) {
    Objects.requireNonNull(chunk, "chunk");
    if (matchedStop != null) {
      return "";
    }
    if (stops.isEmpty()) {
      return chunk;
    }
    if (chunk.isEmpty()) {
      return "";
    }
    int heldBefore = held.length();
    held.append(chunk);
    // A stop string can only end inside the new chunk: the held text alone matched nothing.
    int searchFrom = Math.max(0, heldBefore - longest + 1);
    int best = -1;
    int bestEnd = Integer.MAX_VALUE;
    String bestStop = null;
    for (String stop : stops) {
      int at = held.indexOf(stop, searchFrom); // the first occurrence also ends first
      if (at < 0) {
        continue;
      }
      int end = at + stop.length();
      if (end < bestEnd || (end == bestEnd && at < best)) {
        best = at;
        bestEnd = end;
        bestStop = stop;
      }
    }
    if (best >= 0) {
      matchedStop = bestStop;
      String out = held.substring(0, best);
      held.setLength(0);
      return out;
    }
    int keep = partialMatchLength();
    String out = held.substring(0, held.length() - keep);
    held.delete(0, held.length() - keep);
    return out;
  }

  /** The length of the longest suffix of the held text that is a proper prefix of a stop string. */
  private int partialMatchLength() {
    int max = Math.min(held.length(), longest - 1);
    for (int k = max; k > 0; k--) {
      int start = held.length() - k;
      for (String stop : stops) {
        if (stop.length() > k && regionMatches(start, stop, k)) {
          return k;
        }
      }
    }
    return 0;
  }

  private boolean regionMatches(int start, String stop, int k) {
    for (int i = 0; i < k; i++) {
      if (held.charAt(start + i) != stop.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** True once a stop string has matched: the generation must end. */
  public boolean matched() {
    return matchedStop != null;
  }

  /** The stop string that matched, if any. */
  public Optional<String> matchedStop() {
    return Optional.ofNullable(matchedStop);
  }

  /**
   * Ends the stream: returns the held-back text (it turned out not to be a stop string), or "" when
   * a stop string matched.
   */
  public String finish() {
    String out = matchedStop != null ? "" : held.toString();
    held.setLength(0);
    return out;
  }
}
