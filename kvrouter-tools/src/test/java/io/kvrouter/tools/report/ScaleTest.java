package io.kvrouter.tools.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@link LinearScale} and {@link LogScale}: round ticks, positions and clamping. */
class ScaleTest {

  @Test
  void linear_roundsItsTopUpToAStep_ofOneTwoOrFiveTimesAPowerOfTen() {
    assertThat(new LinearScale(37, Numbers::compact).ticks())
        .containsExactly(0.0, 10.0, 20.0, 30.0, 40.0);
    assertThat(new LinearScale(600, Numbers::compact).ticks())
        .containsExactly(0.0, 200.0, 400.0, 600.0);
    assertThat(new LinearScale(0.9, Numbers::compact).ticks())
        .map(Numbers::compact)
        .containsExactly("0", "0.2", "0.4", "0.6", "0.8", "1");
  }

  @Test
  void linear_withNothingToShow_spansZeroToOne() {
    LinearScale scale = new LinearScale(0, Numbers::compact);

    assertThat(scale.ticks()).first().isEqualTo(0.0);
    assertThat(scale.ticks()).last().isEqualTo(1.0);
  }

  @Test
  void linear_placesAndClampsValues() {
    LinearScale scale = new LinearScale(100, v -> Numbers.compact(v) + "%");

    assertThat(scale.fraction(25)).isEqualTo(0.25);
    assertThat(scale.fraction(-5)).isEqualTo(0.0);
    assertThat(scale.fraction(250)).isEqualTo(1.0);
    assertThat(scale.label(40)).isEqualTo("40%");
  }

  @Test
  void log_spansWholeDecades_withATickOnEach() {
    LogScale scale = new LogScale(12, 45_000, v -> Numbers.compact(v));

    assertThat(scale.ticks()).containsExactly(10.0, 100.0, 1e3, 1e4, 1e5);
    assertThat(scale.fraction(1000)).isEqualTo(0.5);
    assertThat(scale.fraction(0)).isEqualTo(0.0);
    assertThat(scale.fraction(1e9)).isEqualTo(1.0);
  }

  @Test
  void log_overAtMostTwoDecades_alsoTicksAtTwoAndFive() {
    assertThat(new LogScale(20, 80, Numbers::compact).ticks())
        .containsExactly(10.0, 20.0, 50.0, 100.0);
  }

  @Test
  void log_refusesAnAxisWithoutPositiveValues() {
    assertThatThrownBy(() -> new LogScale(0, 10, Numbers::compact))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
