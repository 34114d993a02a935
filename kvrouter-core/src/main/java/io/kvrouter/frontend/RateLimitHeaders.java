package io.kvrouter.frontend;

import java.util.Map;

/**
 * OpenAI's rate-limit response headers for one bucket: {@code x-ratelimit-limit-KIND}, {@code
 * x-ratelimit-remaining-KIND} and {@code x-ratelimit-reset-KIND} (the time until the bucket is full
 * again, written as OpenAI writes it: {@code 20ms}, {@code 1.5s}, {@code 6m0s}), KIND being {@code
 * requests} or {@code tokens}.
 */
final class RateLimitHeaders {
  private RateLimitHeaders() {}

  /** Adds the headers of {@code bucket} at {@code now}; nothing for a bucket without a limit. */
  static void put(Map<String, String> headers, String kind, TokenBucket bucket, long now) {
    TokenBucket.Level level = bucket.level(now);
    if (level.capacity() == 0) {
      return;
    }
    headers.put("x-ratelimit-limit-" + kind, Long.toString(level.capacity()));
    headers.put("x-ratelimit-remaining-" + kind, Long.toString(level.remaining()));
    headers.put("x-ratelimit-reset-" + kind, duration(level.fullInNanos()));
  }

  /** A duration as OpenAI's reset headers write it, rounded up to the millisecond. */
  static String duration(long nanos) {
    long millis = (Math.max(0, nanos) + 999_999) / 1_000_000;
    if (millis < 1000) {
      return millis + "ms";
    }
    long minutes = millis / 60_000;
    long restMillis = millis % 60_000;
    String seconds = Long.toString(restMillis / 1000);
    if (restMillis % 1000 != 0) {
      seconds += "." + String.format("%03d", restMillis % 1000).replaceAll("0+$", "");
    }
    return (minutes > 0 ? minutes + "m" : "") + seconds + "s";
  }
}
