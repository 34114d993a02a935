package io.kvrouter.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.testing.ManualTicker;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class WorkerHealthTest {
  private final ManualTicker ticker = new ManualTicker();
  private final WorkerHealth health = new WorkerHealth(ticker);

  @Test
  void backoff_doublesUpToTheCap() {
    assertThat(WorkerHealth.backoff(0)).isEqualTo(Duration.ofMillis(250));
    assertThat(WorkerHealth.backoff(1)).isEqualTo(Duration.ofMillis(500));
    assertThat(WorkerHealth.backoff(3)).isEqualTo(Duration.ofSeconds(2));
    assertThat(WorkerHealth.backoff(40)).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void aFailure_takesTheWorkerOut_andEachFailedProbeDoublesTheNextDelay() {
    assertThat(health.healthy()).isTrue();

    assertThat(health.fail()).as("took it out: the caller starts probing").isTrue();
    assertThat(health.healthy()).isFalse();
    assertThat(health.nextProbeDelay()).isEqualTo(Duration.ofMillis(250));

    health.probeFailed();
    assertThat(health.nextProbeDelay()).isEqualTo(Duration.ofMillis(500));
    health.probeFailed();
    assertThat(health.nextProbeDelay()).isEqualTo(Duration.ofSeconds(1));
    for (int i = 0; i < 20; i++) {
      health.probeFailed();
    }
    assertThat(health.nextProbeDelay()).isEqualTo(WorkerHealth.MAX_DELAY);
    assertThat(health.healthy()).isFalse();
  }

  @Test
  void moreFailuresWhileOut_doNotStartAnotherProbeChainOrCount() {
    health.fail();

    assertThat(health.fail()).isFalse();
    assertThat(health.fail()).isFalse();
    assertThat(health.failures()).isEqualTo(1);
  }

  @Test
  void aWorkerThatFailsRightAfterAProbeBroughtItBack_waitsLongerEachTime() {
    // It answers probes but fails every request (acks and never streams, or hangs again at once).
    health.fail();
    health.probeSucceeded();
    assertThat(health.healthy()).isTrue();

    ticker.advance(Duration.ofMillis(10));
    assertThat(health.fail()).isTrue();
    assertThat(health.nextProbeDelay()).isEqualTo(Duration.ofMillis(500));

    health.probeSucceeded();
    ticker.advance(Duration.ofMillis(10));
    health.fail();
    assertThat(health.nextProbeDelay()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void failuresAreForgiven_onceARequestCompletes() {
    health.fail();
    health.probeFailed();
    health.probeFailed();
    health.probeSucceeded();

    health.requestCompleted();
    health.fail();

    assertThat(health.failures()).isEqualTo(1);
    assertThat(health.nextProbeDelay()).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void failuresAreForgiven_afterLongEnoughInRotation() {
    health.fail();
    health.probeFailed();
    health.probeFailed();
    health.probeSucceeded();

    ticker.advance(WorkerHealth.FORGIVEN_AFTER.minusMillis(1));
    health.fail();
    assertThat(health.nextProbeDelay())
        .as("back after less than the forgiving time: still counted")
        .isEqualTo(Duration.ofSeconds(2));

    health.probeSucceeded();
    ticker.advance(WorkerHealth.FORGIVEN_AFTER);
    health.fail();
    assertThat(health.nextProbeDelay()).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void aRequestCompletingWhileTheWorkerIsOut_doesNotShortenItsBackoff() {
    health.fail();
    health.probeFailed();

    health.requestCompleted(); // a stream that started before the fault

    assertThat(health.nextProbeDelay()).isEqualTo(Duration.ofMillis(500));
  }
}
