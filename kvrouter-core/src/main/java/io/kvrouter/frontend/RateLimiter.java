package io.kvrouter.frontend;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.RateLimits;
import io.kvrouter.protocol.RateLimitedException;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The rate limits of each API key name ({@code --rate-limit-requests-per-minute}, {@code
 * --rate-limit-tokens-per-minute}, {@code --max-concurrent-requests-per-key}, and a keys file's
 * per-key overrides): a generation request is admitted ({@link #admit}) when its key has a request
 * left this minute and a place in flight, then books its tokens once its prompt is tokenized
 * ({@link RateLimitTicket}). Each key's requests and tokens are a {@link TokenBucket}; its place in
 * flight is a counter; nothing is locked. Without API keys every request goes by one name, {@value
 * #ANONYMOUS}, and shares its limits.
 *
 * <p>The state lives in this router process only: routers side by side each count their own.
 */
public final class RateLimiter {
  /** The name all requests go by when no API keys are configured. */
  public static final String ANONYMOUS = "anonymous";

  private final MeterRegistry meters;
  private final Ticker ticker;
  private final Map<String, KeyLimiter> keys = new ConcurrentHashMap<>();

  /**
   * @param ticker where the buckets read the time
   */
  public RateLimiter(MeterRegistry meters, Ticker ticker) {
    this.meters = meters;
    this.ticker = ticker;
  }

  /**
   * The limits of each key name from now on: a name already known keeps what it used and what it
   * has in flight under its new limits (all off included, so that turning them on again later still
   * counts the requests in flight), a new one starts with full buckets, and a name no longer given
   * drops its state once it has nothing in flight (else at a later call). A new name whose limits
   * are all off is not tracked.
   */
  public synchronized void limits(Map<String, RateLimits> byName) {
    long now = ticker.nanos();
    keys.entrySet().removeIf(e -> !byName.containsKey(e.getKey()) && e.getValue().inFlight() == 0);
    byName.forEach(
        (name, limits) -> {
          KeyLimiter existing = keys.get(name);
          if (existing != null) {
            existing.limits(limits, now);
          } else if (limits.any()) {
            keys.put(name, new KeyLimiter(name, limits, meters, now));
          }
        });
  }

  /** Whether any key has a limit. */
  boolean active() {
    return !keys.isEmpty();
  }

  /**
   * Admits a generation request of the key {@code keyName} (empty without API keys) or refuses it
   * with a {@link RateLimitedException}: when its key has as many requests in flight as it may, or
   * no request left this minute. The ticket must be {@link RateLimitTicket#release released} when
   * the request ends.
   */
  RateLimitTicket admit(Optional<String> keyName) {
    KeyLimiter key = keys.get(keyName.orElse(ANONYMOUS));
    if (key == null) {
      return RateLimitTicket.UNLIMITED;
    }
    long now = ticker.nanos();
    if (!key.enter()) {
      key.refused(KeyLimiter.Refusal.CONCURRENCY);
      throw new RateLimitedException(
          "Concurrency limit reached for "
              + who(key)
              + ": Limit "
              + key.concurrency()
              + " requests in flight. Please try again when one of them has ended.",
          "requests",
          1000,
          headers(key, now));
    }
    TokenBucket.Take take = key.requests().take(1, now);
    if (!take.taken()) {
      key.exit();
      key.refused(KeyLimiter.Refusal.REQUESTS);
      throw new RateLimitedException(
          "Rate limit reached for "
              + who(key)
              + " on requests per min (RPM): Limit "
              + key.requests().capacity()
              + ", Requested 1. Please try again in "
              + seconds(take.waitNanos())
              + "s.",
          "requests",
          millis(take.waitNanos()),
          headers(key, now));
    }
    key.admitted();
    return new RateLimitTicket(key, ticker);
  }

  /** How a refusal names the key: its name, or all requests when no keys are configured. */
  static String who(KeyLimiter key) {
    return key.name().equals(ANONYMOUS)
        ? "this router's requests (no API keys are configured; all share one limit)"
        : "API key '" + key.name() + "'";
  }

  /** The {@code x-ratelimit-*} headers of {@code key}'s buckets. */
  static Map<String, String> headers(KeyLimiter key, long now) {
    Map<String, String> headers = new LinkedHashMap<>();
    RateLimitHeaders.put(headers, "requests", key.requests(), now);
    RateLimitHeaders.put(headers, "tokens", key.tokens(), now);
    return headers;
  }

  /** {@code nanos} in whole milliseconds, rounded up, at least 1. */
  static long millis(long nanos) {
    return Math.max(1, (nanos + 999_999) / 1_000_000);
  }

  /** {@code nanos} in whole seconds, rounded up, at least 1: what {@code Retry-After} says. */
  static long seconds(long nanos) {
    return Math.max(1, (nanos + 999_999_999) / 1_000_000_000);
  }
}
