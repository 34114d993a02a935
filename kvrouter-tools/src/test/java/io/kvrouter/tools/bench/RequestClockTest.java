package io.kvrouter.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class RequestClockTest {
  private static final long MS = 1_000_000;
  private static final long SENT = 5_000 * MS;

  @Test
  void ttftRunsToTheFirstText_itlBetweenTexts_e2eToDone() {
    RequestClock clock = new RequestClock(SENT, 3);
    clock.event(SENT + 50 * MS, true);
    clock.event(SENT + 60 * MS, true);
    clock.event(SENT + 75 * MS, true);
    clock.event(SENT + 76 * MS, false); // finish chunk
    clock.event(SENT + 77 * MS, false); // usage chunk
    clock.usage(3);

    RequestClock.Timing timing = clock.done(SENT + 80 * MS);

    assertThat(timing.ttftMs()).isCloseTo(50, within(1e-9));
    assertThat(timing.itlMs()).containsExactly(10, 15);
    assertThat(timing.e2eMs()).isCloseTo(80, within(1e-9));
    assertThat(timing.outputTokens()).isEqualTo(3);
  }

  @Test
  void eventsBeforeTheFirstText_doNotCount() {
    RequestClock clock = new RequestClock(SENT, 1);
    clock.event(SENT + 5 * MS, false);
    clock.event(SENT + 30 * MS, true);
    assertThat(clock.done(SENT + 31 * MS).ttftMs()).isCloseTo(30, within(1e-9));
  }

  @Test
  void withoutUsage_outputTokensAreTheEventsWithText() {
    RequestClock clock = new RequestClock(SENT, 1);
    for (int i = 1; i <= 40; i++) {
      clock.event(SENT + i * MS, true);
    }
    RequestClock.Timing timing = clock.done(SENT + 41 * MS);
    assertThat(timing.outputTokens()).isEqualTo(40);
    assertThat(timing.itlMs()).hasSize(39).containsOnly(1.0);
  }

  @Test
  void aStreamWithoutText_hasItsFirstTokenAtItsEnd() {
    RequestClock clock = new RequestClock(SENT, 4);
    clock.event(SENT + 10 * MS, false);
    RequestClock.Timing timing = clock.done(SENT + 20 * MS);
    assertThat(timing.ttftMs()).isEqualTo(timing.e2eMs()).isCloseTo(20, within(1e-9));
    assertThat(timing.itlMs()).isEmpty();
    assertThat(timing.outputTokens()).isZero();
  }
}
