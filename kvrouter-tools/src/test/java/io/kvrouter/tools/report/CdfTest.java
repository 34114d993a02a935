package io.kvrouter.tools.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link Cdf}: thinning keeps the curve's ends and its shape. */
class CdfTest {

  @Test
  void smallSample_keepsEveryPoint_sorted_withFractionsOfTheSample() {
    Cdf cdf = Cdf.of(new double[] {30, 10, 20, 40}, 300);

    assertThat(cdf.x()).containsExactly(10, 20, 30, 40);
    assertThat(cdf.y()).containsExactly(0.25, 0.5, 0.75, 1.0);
  }

  @Test
  void largeSample_isThinnedToTheCap_keepingTheSmallestAndLargest() {
    double[] samples = new double[1001];
    for (int i = 0; i < samples.length; i++) {
      samples[i] = 1000 - i;
    }

    Cdf cdf = Cdf.of(samples, 11);

    assertThat(cdf.x()).containsExactly(0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000);
    assertThat(cdf.y()[0]).isEqualTo(1 / 1001.0);
    assertThat(cdf.y()[5]).isEqualTo(501 / 1001.0);
    assertThat(cdf.y()[10]).isEqualTo(1.0);
  }

  @Test
  void nonFiniteSamples_areLeftOut() {
    Cdf cdf = Cdf.of(new double[] {Double.NaN, 2, Double.POSITIVE_INFINITY, 1}, 300);

    assertThat(cdf.x()).containsExactly(1, 2);
    assertThat(cdf.y()).containsExactly(0.5, 1.0);
  }

  @Test
  void emptySample_hasNoPoints() {
    assertThat(Cdf.of(new double[0], 300).x()).isEmpty();
  }

  @Test
  void input_isNotReordered() {
    double[] samples = {3, 1, 2};

    Cdf.of(samples, 300);

    assertThat(samples).containsExactly(3, 1, 2);
  }
}
