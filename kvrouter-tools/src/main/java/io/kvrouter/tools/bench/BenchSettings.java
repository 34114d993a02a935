package io.kvrouter.tools.bench;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What to replay against which router, and how. Invalid values throw {@link
 * IllegalArgumentException} with a message naming the {@code router.jar bench} option.
 *
 * @param urls the routers' base URLs, {@code http://HOST:PORT} (a path prefix is kept): one, or
 *     several routers of a fleet, sent the requests in turn
 * @param trace the Mooncake trace to replay
 * @param rateScale requests arrive this many times as often as in the trace
 * @param durationSeconds only requests arriving (after scaling) before this are sent; null: all
 * @param timeout a request not done this long after its send fails
 * @param interval how often the router is polled for the timeline
 * @param connections most HTTP connections open to the router at once; requests beyond wait for one
 *     (that wait counts in their latency)
 * @param model the model to ask for; null: the first of {@code GET /v1/models}
 * @param label the run's name in the results; null: the router's mode, else {@code live}
 * @param tokenRange the prompt token ids to draw from; null: chosen for the router's vocabulary
 */
public record BenchSettings(
    List<URI> urls,
    Path trace,
    double rateScale,
    Double durationSeconds,
    Duration timeout,
    Duration interval,
    int connections,
    String model,
    String label,
    TokenRange tokenRange) {

  public BenchSettings {
    urls = List.copyOf(urls);
    if (urls.isEmpty()) {
      throw new IllegalArgumentException("--url is required");
    }
    Objects.requireNonNull(trace, "trace");
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(interval, "interval");
    for (URI url : urls) {
      if (!("http".equals(url.getScheme()) || "https".equals(url.getScheme()))
          || url.getHost() == null
          || url.getRawQuery() != null
          || url.getRawFragment() != null) {
        throw new IllegalArgumentException(
            "--url must be a router's base URL, like http://127.0.0.1:8000, not '" + url + "'");
      }
    }
    if (!(rateScale > 0) || Double.isInfinite(rateScale)) {
      throw new IllegalArgumentException("--rate-scale must be a number above 0, not " + rateScale);
    }
    if (durationSeconds != null && !(durationSeconds > 0)) {
      throw new IllegalArgumentException(
          "--duration must be above 0 seconds, not " + durationSeconds);
    }
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("--timeout must be above 0 seconds");
    }
    if (interval.toMillis() < 1) {
      throw new IllegalArgumentException("--interval must be at least 0.001 seconds");
    }
    if (connections < 1) {
      throw new IllegalArgumentException("--connections must be 1 or more, not " + connections);
    }
  }

  /** Each of {@link #urls} without a trailing slash, for appending paths. */
  public List<String> baseUrls() {
    return urls.stream()
        .map(URI::toString)
        .map(text -> text.endsWith("/") ? text.substring(0, text.length() - 1) : text)
        .toList();
  }

  /**
   * Prompt token ids {@code first .. first + count - 1}. They must lie in the router's vocabulary,
   * and should avoid its special tokens, which a real engine treats as control.
   */
  public record TokenRange(int first, int count) {
    public TokenRange {
      if (first < 0 || count < 1 || (long) first + count > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "--token-range must be FIRST:COUNT with FIRST >= 0 and COUNT >= 1, not "
                + first
                + ":"
                + count);
      }
    }

    /** Parses {@code FIRST:COUNT}. */
    public static TokenRange parse(String text) {
      String[] parts = text.split(":", -1);
      try {
        if (parts.length == 2) {
          return new TokenRange(
              Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()));
        }
      } catch (NumberFormatException e) {
        // reported below with the expected form
      }
      throw new IllegalArgumentException(
          "--token-range must be FIRST:COUNT, like 1000:32000, not '" + text + "'");
    }

    public int last() {
      return first + count - 1;
    }

    @Override
    public String toString() {
      return first + ".." + last();
    }
  }
}
