package io.kvrouter.tools.bench;

import java.util.Arrays;

/**
 * The client-side timing of one streamed request, fed the arrival time of each event. Time to first
 * token runs from the send to the first event carrying generated text (events without text, such as
 * the usage chunk, do not count); inter-token latencies are the gaps between successive events
 * carrying text; end to end runs from the send to {@code [DONE]}. A stream that shows no text at
 * all gets its first token at its end. Output tokens are the usage chunk's count, else the events
 * with text. Not thread-safe: one request's events come from one event loop.
 */
final class RequestClock {
  private static final double NANOS_PER_MS = 1_000_000.0;

  private final long sentNanos;
  private long firstText = -1;
  private long lastText = -1;
  private int textEvents;
  private int usageTokens = -1;
  private double[] gapsMs;
  private int gapCount;

  /**
   * @param sentNanos when the request was sent, on the bench's {@code Ticker}
   * @param expectedTokens the tokens asked for, to size the gap buffer
   */
  RequestClock(long sentNanos, int expectedTokens) {
    this.sentNanos = sentNanos;
    this.gapsMs = new double[Math.max(1, Math.min(expectedTokens, 1 << 16))];
  }

  /** An event arrived at {@code nanos}; {@code text}: it carries generated text. */
  void event(long nanos, boolean text) {
    if (!text) {
      return;
    }
    if (firstText < 0) {
      firstText = nanos;
    } else {
      if (gapCount == gapsMs.length) {
        gapsMs = Arrays.copyOf(gapsMs, gapCount * 2);
      }
      gapsMs[gapCount++] = (nanos - lastText) / NANOS_PER_MS;
    }
    lastText = nanos;
    textEvents++;
  }

  /** The usage chunk's {@code completion_tokens}. */
  void usage(int completionTokens) {
    usageTokens = completionTokens;
  }

  /** The request ended with {@code [DONE]} at {@code nanos}. */
  Timing done(long nanos) {
    long first = firstText < 0 ? nanos : firstText;
    return new Timing(
        (first - sentNanos) / NANOS_PER_MS,
        (nanos - sentNanos) / NANOS_PER_MS,
        Arrays.copyOf(gapsMs, gapCount),
        usageTokens >= 0 ? usageTokens : textEvents);
  }

  /** One finished request's times in milliseconds and its output tokens. */
  record Timing(double ttftMs, double e2eMs, double[] itlMs, int outputTokens) {}
}
