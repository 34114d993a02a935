package io.kvrouter.frontend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.config.ApiKey;
import io.kvrouter.config.ApiKeyConfig;
import io.kvrouter.config.RateLimitOverrides;
import io.kvrouter.config.RateLimits;
import io.kvrouter.protocol.RateLimitedException;
import io.kvrouter.testing.ManualTicker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Which limits {@link ApiKeyAuth} hands its limiter: each key's own, or one shared without keys.
 */
class ApiKeyAuthLimitsTest {
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final RateLimiter limiter = new RateLimiter(meters, new ManualTicker());

  @Test
  void withoutKeys_theLimitsHoldForAllRequestsTogether() {
    new ApiKeyAuth(
        new ApiKeyConfig(List.of(), null, List.of(), null, new RateLimits(2, 0, 0), false),
        meters,
        limiter);
    limiter.admit(Optional.empty());
    limiter.admit(Optional.empty());
    assertThatThrownBy(() -> limiter.admit(Optional.empty()))
        .isInstanceOf(RateLimitedException.class);
  }

  @Test
  void withKeys_eachKeyHasTheDefaultsUnderItsOwnLines() {
    ApiKey flagKey = ApiKey.unnamed("sk-flag-0123456789");
    ApiKey own =
        new ApiKey("team-a", "sk-team-a-0123456789", new RateLimitOverrides(1L, null, null));
    new ApiKeyAuth(
        new ApiKeyConfig(
            List.of(flagKey), null, List.of(own), null, new RateLimits(2, 0, 0), false),
        meters,
        limiter);
    limiter.admit(Optional.of(flagKey.name()));
    limiter.admit(Optional.of(flagKey.name()));
    assertThatThrownBy(() -> limiter.admit(Optional.of(flagKey.name())))
        .isInstanceOf(RateLimitedException.class);
    limiter.admit(Optional.of("team-a"));
    assertThatThrownBy(() -> limiter.admit(Optional.of("team-a")))
        .isInstanceOf(RateLimitedException.class);
    // no request goes by the shared name when keys are required
    assertThat(limiter.admit(Optional.empty())).isSameAs(RateLimitTicket.UNLIMITED);
  }
}
