package io.kvrouter.routing.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ScheduleSettingsTest {

  @Test
  void defaults_areDynamos() {
    ScheduleSettings settings = ScheduleSettings.defaults(16);

    assertThat(settings.overlapScoreWeight()).isEqualTo(1.0);
    assertThat(settings.temperature()).isEqualTo(0.0);
    assertThat(settings.blockSize()).isEqualTo(16);
    assertThat(settings.activeDecodeBlocksThreshold()).isEmpty();
    assertThat(settings.activePrefillTokensThreshold()).isEmpty();
  }

  @Test
  void invalidValues_failNamingTheSetting() {
    assertThatThrownBy(() -> ScheduleSettings.defaults(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("blockSize");
    assertThatThrownBy(() -> ScheduleSettings.defaults(16).withTemperature(-0.1))
        .hasMessageContaining("temperature");
    assertThatThrownBy(() -> ScheduleSettings.defaults(16).withTemperature(Double.NaN))
        .hasMessageContaining("temperature");
    assertThatThrownBy(() -> ScheduleSettings.defaults(16).withOverlapScoreWeight(-1))
        .hasMessageContaining("overlapScoreWeight");
    assertThatThrownBy(
            () ->
                ScheduleSettings.defaults(16)
                    .withBusyThresholds(OptionalDouble.of(-0.5), OptionalLong.empty()))
        .hasMessageContaining("activeDecodeBlocksThreshold");
    assertThatThrownBy(
            () ->
                ScheduleSettings.defaults(16)
                    .withBusyThresholds(OptionalDouble.empty(), OptionalLong.of(-1)))
        .hasMessageContaining("activePrefillTokensThreshold");
  }

  @Test
  void request_keepsDistinctHashesInOrderAndCopies() {
    long[] hashes = {5, 3, 5, 9, 3};
    ScheduleRequest request = new ScheduleRequest(40, hashes);
    hashes[0] = 77;

    assertThat(request.blockHashes()).containsExactly(5, 3, 9);
    assertThat(request.blockCount()).isEqualTo(3);
    request.blockHashes()[0] = 99;
    assertThat(request.blockHashes()).containsExactly(5, 3, 9);
    assertThat(request).isEqualTo(new ScheduleRequest(40, new long[] {5, 3, 9}));
    assertThat(request.hashCode())
        .isEqualTo(new ScheduleRequest(40, new long[] {5, 3, 9}).hashCode());
  }

  @Test
  void request_rejectsNegativeTokens() {
    assertThatThrownBy(() -> ScheduleRequest.ofTokens(-1)).hasMessageContaining("inputTokens");
  }

  @Test
  void candidate_rejectsNegativeCapacity() {
    assertThatThrownBy(() -> new Candidate(Fixtures.W1, -1)).hasMessageContaining("totalKvBlocks");
  }
}
