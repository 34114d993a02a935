package io.kvrouter.frontend;

import io.kvrouter.config.RateLimits;
import io.kvrouter.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The rate-limit state of one key name: a bucket of requests per minute, one of tokens per minute,
 * the requests in flight, and the key's meters. A key whose limits change keeps what it used.
 */
final class KeyLimiter {
  /** What refused a request, as the {@code limit} tag of the refusals counter names it. */
  enum Refusal {
    REQUESTS,
    TOKENS,
    CONCURRENCY;

    String tag() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  private final String name;
  private final TokenBucket requests;
  private final TokenBucket tokens;
  private final AtomicLong inFlight = new AtomicLong();
  private volatile long concurrency;

  private final Counter admitted;
  private final Counter[] refused = new Counter[Refusal.values().length];
  private final Counter booked;
  private final Counter used;

  KeyLimiter(String name, RateLimits limits, MeterRegistry meters, long now) {
    this.name = name;
    this.requests = new TokenBucket(limits.requestsPerMinute(), now);
    this.tokens = new TokenBucket(limits.tokensPerMinute(), now);
    this.concurrency = limits.concurrentRequests();
    this.admitted =
        Counter.builder(MetricNames.RATE_LIMIT_ADMITTED)
            .description("Generation requests the rate limits let through, by key name")
            .tag(MetricNames.TAG_KEY, name)
            .register(meters);
    for (Refusal refusal : Refusal.values()) {
      refused[refusal.ordinal()] =
          Counter.builder(MetricNames.RATE_LIMIT_REFUSED)
              .description("Generation requests refused by a rate limit, by key name and limit")
              .tag(MetricNames.TAG_KEY, name)
              .tag(MetricNames.TAG_LIMIT, refusal.tag())
              .register(meters);
    }
    this.booked =
        Counter.builder(MetricNames.RATE_LIMIT_BOOKED_TOKENS)
            .description("Tokens booked at admission (prompt and most completion), by key name")
            .tag(MetricNames.TAG_KEY, name)
            .register(meters);
    this.used =
        Counter.builder(MetricNames.RATE_LIMIT_USED_TOKENS)
            .description("Tokens used (prompt and completion) when requests ended, by key name")
            .tag(MetricNames.TAG_KEY, name)
            .register(meters);
  }

  String name() {
    return name;
  }

  TokenBucket requests() {
    return requests;
  }

  TokenBucket tokens() {
    return tokens;
  }

  long concurrency() {
    return concurrency;
  }

  /** Applies new limits; what was used and what is in flight stay counted. */
  void limits(RateLimits limits, long now) {
    requests.resize(limits.requestsPerMinute(), now);
    tokens.resize(limits.tokensPerMinute(), now);
    concurrency = limits.concurrentRequests();
  }

  /** Counts one more request in flight, unless the cap is reached. */
  boolean enter() {
    while (true) {
      long current = inFlight.get();
      long cap = concurrency;
      if (cap > 0 && current >= cap) {
        return false;
      }
      if (inFlight.compareAndSet(current, current + 1)) {
        return true;
      }
    }
  }

  /** The requests in flight. */
  long inFlight() {
    return inFlight.get();
  }

  /** One request in flight ended. */
  void exit() {
    inFlight.decrementAndGet();
  }

  void admitted() {
    admitted.increment();
  }

  void refused(Refusal refusal) {
    refused[refusal.ordinal()].increment();
  }

  void booked(long count) {
    booked.increment(count);
  }

  void used(long count) {
    used.increment(count);
  }
}
