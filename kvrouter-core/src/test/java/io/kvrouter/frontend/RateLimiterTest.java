package io.kvrouter.frontend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.config.RateLimits;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.preprocess.AdmissionGate;
import io.kvrouter.preprocess.GenerationRequest;
import io.kvrouter.preprocess.Prompt;
import io.kvrouter.protocol.InvalidRequestException;
import io.kvrouter.protocol.RateLimitedException;
import io.kvrouter.testing.ManualTicker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Per-key limits on a clock the test moves: no test waits for real time. */
class RateLimiterTest {
  private final ManualTicker clock = new ManualTicker();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final RateLimiter limiter = new RateLimiter(meters, clock);

  private static final Optional<String> TEAM_A = Optional.of("team-a");

  private static GenerationRequest request(Integer maxTokens) {
    return new GenerationRequest(
        "r", new Prompt.Text("x"), maxTokens, null, null, null, null, false, null, null);
  }

  private static RateLimitedException refusal(Runnable admission) {
    try {
      admission.run();
    } catch (RateLimitedException e) {
      return e;
    }
    throw new AssertionError("admitted");
  }

  private double counter(String name, String... tags) {
    var counter = meters.find(name).tags(tags).counter();
    return counter == null ? 0 : counter.count();
  }

  @Test
  void requestsPerMinute_passTheLimit_thenRefuseWithTheTimeUntilOneIsBack() {
    limiter.limits(Map.of("team-a", new RateLimits(3, 0, 0), "team-b", new RateLimits(1, 0, 0)));
    for (int i = 0; i < 3; i++) {
      limiter.admit(TEAM_A);
    }
    RateLimitedException refused = refusal(() -> limiter.admit(TEAM_A));
    assertThat(refused.type()).isEqualTo("requests");
    assertThat(refused.retryAfterMillis()).isEqualTo(20_000);
    assertThat(refused)
        .hasMessage(
            "Rate limit reached for API key 'team-a' on requests per min (RPM): Limit 3,"
                + " Requested 1. Please try again in 20s.");
    assertThat(refused.headers())
        .containsEntry("x-ratelimit-limit-requests", "3")
        .containsEntry("x-ratelimit-remaining-requests", "0")
        .containsEntry("x-ratelimit-reset-requests", "1m0s")
        .doesNotContainKey("x-ratelimit-limit-tokens");
    // another key has its own bucket
    limiter.admit(Optional.of("team-b"));

    clock.advance(Duration.ofSeconds(20).minusNanos(1));
    refusal(() -> limiter.admit(TEAM_A));
    clock.advance(Duration.ofNanos(1));
    limiter.admit(TEAM_A);
    assertThat(counter(MetricNames.RATE_LIMIT_ADMITTED, "key", "team-a")).isEqualTo(4);
    assertThat(counter(MetricNames.RATE_LIMIT_REFUSED, "key", "team-a", "limit", "requests"))
        .isEqualTo(2);
  }

  @Test
  void concurrency_capsTheRequestsInFlight_andAReleaseFreesAPlace() {
    limiter.limits(Map.of("team-a", new RateLimits(0, 0, 2)));
    RateLimitTicket first = limiter.admit(TEAM_A);
    limiter.admit(TEAM_A);
    RateLimitedException refused = refusal(() -> limiter.admit(TEAM_A));
    assertThat(refused).hasMessageStartingWith("Concurrency limit reached for API key 'team-a'");
    assertThat(refused.type()).isEqualTo("requests");
    first.release();
    first.release(); // once only
    limiter.admit(TEAM_A);
    refusal(() -> limiter.admit(TEAM_A));
    assertThat(counter(MetricNames.RATE_LIMIT_REFUSED, "key", "team-a", "limit", "concurrency"))
        .isEqualTo(2);
  }

  @Test
  void tokens_bookPromptAndMaxTokens_andTheEndGivesBackWhatWasNotUsed() {
    limiter.limits(Map.of("team-a", new RateLimits(10, 100, 0)));
    AdmissionGate.Booking first = limiter.admit(TEAM_A).admit(request(30), 20, 30);
    limiter.admit(TEAM_A).admit(request(30), 20, 30);
    RateLimitTicket third = limiter.admit(TEAM_A);
    RateLimitedException refused = refusal(() -> third.admit(request(30), 20, 30));
    assertThat(refused.type()).isEqualTo("tokens");
    assertThat(refused)
        .hasMessage(
            "Rate limit reached for API key 'team-a' on tokens per min (TPM): Limit 100,"
                + " Remaining 0, Requested 50. Please try again in 30s.");
    assertThat(refused.headers()).containsEntry("x-ratelimit-remaining-tokens", "0");
    // the refused request gave its request back: 7 of 10 are left, not 6
    assertThat(limiter.admit(TEAM_A).headers())
        .containsEntry("x-ratelimit-remaining-requests", "7");

    first.settle(25); // 20 prompt + 5 completion of the 50 booked
    limiter.admit(TEAM_A).admit(request(5), 20, 5);
    assertThat(counter(MetricNames.RATE_LIMIT_BOOKED_TOKENS, "key", "team-a")).isEqualTo(125);
    assertThat(counter(MetricNames.RATE_LIMIT_USED_TOKENS, "key", "team-a")).isEqualTo(25);

    // used more than booked: the key owes it
    clock.advance(Duration.ofMinutes(1));
    limiter.admit(TEAM_A).admit(request(10), 10, 10).settle(150);
    assertThat(refusal(() -> limiter.admit(TEAM_A).admit(request(1), 1, 1)).retryAfterMillis())
        .isEqualTo(31_200); // 80 tokens over, 2 more wanted: 82 × 0.6 s − 60 s
  }

  @Test
  void severalPrompts_bookWhatEachNeeds_andTogetherMustFitTheMinute() {
    limiter.limits(Map.of("team-a", new RateLimits(0, 100, 0)));
    // two prompts without max_tokens: each books its prompt alone, so both fit a full bucket,
    // where each booking what the context leaves would refuse the second on every try
    RateLimitTicket unbounded = limiter.admit(TEAM_A);
    unbounded.prompts(2);
    AdmissionGate.Booking a = unbounded.admit(request(null), 10, 1000);
    AdmissionGate.Booking b = unbounded.admit(request(null), 10, 1000);
    a.settle(40);
    b.settle(40);
    assertThat(counter(MetricNames.RATE_LIMIT_BOOKED_TOKENS, "key", "team-a")).isEqualTo(20);

    clock.advance(Duration.ofMinutes(2));
    // prompts that each fit the minute but not together can never pass: 400, not 429
    RateLimitTicket tooMuch = limiter.admit(TEAM_A);
    tooMuch.prompts(2);
    tooMuch.admit(request(30), 20, 30);
    assertThatThrownBy(() -> tooMuch.admit(request(40), 20, 40))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("Requested at least 110 for its 2 prompts together");
  }

  @Test
  void aRequestOverTheTokensPerMinute_is400_andWithoutMaxTokensBooksAtMostTheMinute() {
    limiter.limits(Map.of("team-a", new RateLimits(0, 100, 0)));
    assertThatThrownBy(() -> limiter.admit(TEAM_A).admit(request(90), 20, 90))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessage(
            "Request too large for API key 'team-a' on tokens per min (TPM): Limit 100, Requested"
                + " 110 (20 in the prompt and 90 for 'max_tokens'). Lower 'max_tokens' or shorten"
                + " the prompt.")
        .extracting(e -> ((InvalidRequestException) e).param())
        .isEqualTo("max_tokens");
    assertThatThrownBy(() -> limiter.admit(TEAM_A).admit(request(null), 101, 1000))
        .isInstanceOf(InvalidRequestException.class)
        .extracting(e -> ((InvalidRequestException) e).param())
        .isEqualTo("prompt");
    assertThat(counter(MetricNames.RATE_LIMIT_REFUSED, "key", "team-a", "limit", "tokens"))
        .isEqualTo(2);

    // no max_tokens and nothing bounds the completion: the whole minute is booked
    AdmissionGate.Booking unbounded =
        limiter.admit(TEAM_A).admit(request(null), 10, Integer.MAX_VALUE);
    assertThat(refusal(() -> limiter.admit(TEAM_A).admit(request(1), 1, 1)).type())
        .isEqualTo("tokens");
    unbounded.settle(40);
    limiter.admit(TEAM_A).admit(request(50), 10, 50);
  }

  @Test
  void newLimits_keepWhatWasUsed_andAKeyThatIsGoneDropsItsState() {
    limiter.limits(Map.of("team-a", new RateLimits(4, 0, 0), "team-b", new RateLimits(1, 0, 0)));
    limiter.admit(TEAM_A);
    limiter.admit(TEAM_A);
    limiter.limits(Map.of("team-a", new RateLimits(2, 0, 0), "team-b", new RateLimits(1, 0, 0)));
    refusal(() -> limiter.admit(TEAM_A));
    limiter.limits(Map.of("team-a", new RateLimits(3, 0, 0), "team-b", new RateLimits(1, 0, 0)));
    limiter.admit(TEAM_A);
    refusal(() -> limiter.admit(TEAM_A));

    limiter.limits(Map.of("team-a", new RateLimits(3, 0, 0)));
    assertThat(limiter.admit(Optional.of("team-b"))).isSameAs(RateLimitTicket.UNLIMITED);
    limiter.limits(Map.of("team-a", RateLimits.NONE, "team-b", new RateLimits(1, 0, 0)));
    assertThat(limiter.active()).isTrue();
    limiter.admit(Optional.of("team-b")); // back with a full bucket
    for (int i = 0; i < 10; i++) {
      limiter.admit(TEAM_A); // its limits are off now
    }
  }

  @Test
  void requestsInFlight_stayCounted_whenLimitsGoOffOrTheKeyGoesAndComesBack() {
    limiter.limits(Map.of("team-a", new RateLimits(0, 0, 1)));
    RateLimitTicket inFlight = limiter.admit(TEAM_A);
    limiter.limits(Map.of("team-a", RateLimits.NONE));
    limiter.limits(Map.of("team-a", new RateLimits(0, 0, 1)));
    refusal(() -> limiter.admit(TEAM_A));
    limiter.limits(Map.of()); // gone from the file while its request runs
    limiter.limits(Map.of("team-a", new RateLimits(0, 0, 1)));
    refusal(() -> limiter.admit(TEAM_A));
    inFlight.release();
    limiter.admit(TEAM_A);
  }

  @Test
  void withoutApiKeys_allRequestsShareOneLimit() {
    limiter.limits(Map.of(RateLimiter.ANONYMOUS, new RateLimits(2, 0, 0)));
    limiter.admit(Optional.empty());
    limiter.admit(Optional.empty());
    assertThat(refusal(() -> limiter.admit(Optional.empty())))
        .hasMessageContaining("no API keys are configured");
    assertThat(counter(MetricNames.RATE_LIMIT_ADMITTED, "key", "anonymous")).isEqualTo(2);
  }
}
