package io.kvrouter.config;

/**
 * The rate limits of one API key (or, without keys, of all requests together), each 0 for no limit.
 *
 * @param requestsPerMinute generation requests admitted per minute ({@code
 *     --rate-limit-requests-per-minute}, a keys file's {@code rpm=})
 * @param tokensPerMinute prompt and completion tokens per minute, booked at admission and corrected
 *     when the request ends ({@code --rate-limit-tokens-per-minute}, {@code tpm=})
 * @param concurrentRequests generation requests in flight at once ({@code
 *     --max-concurrent-requests-per-key}, {@code concurrency=})
 */
public record RateLimits(long requestsPerMinute, long tokensPerMinute, long concurrentRequests) {
  /** No limits. */
  public static final RateLimits NONE = new RateLimits(0, 0, 0);

  /** The largest value a limit may have. */
  public static final long MAX = 1_000_000_000_000L;

  public RateLimits {
    check(requestsPerMinute, "requestsPerMinute");
    check(tokensPerMinute, "tokensPerMinute");
    check(concurrentRequests, "concurrentRequests");
  }

  private static void check(long value, String what) {
    if (value < 0 || value > MAX) {
      throw new IllegalArgumentException(what + " is 0 (no limit) to " + MAX + ": " + value);
    }
  }

  /** Whether any limit is set. */
  public boolean any() {
    return requestsPerMinute > 0 || tokensPerMinute > 0 || concurrentRequests > 0;
  }
}
