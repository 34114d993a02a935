package io.kvrouter.tools.report;

import java.util.Arrays;

/**
 * The empirical cumulative distribution of a sample, thinned to a bounded number of points. A
 * replay has thousands of requests, and the report must stay small enough to mail around; a few
 * hundred points evenly spaced in rank draw the same curve at any size a screen shows. The smallest
 * and largest samples are always kept, so the curve still starts and ends where the data does.
 * Samples that are not finite (a measurement that never happened) are left out.
 *
 * @param x sample values, ascending
 * @param y the fraction of the sample at or below each {@code x}, ending at 1
 */
record Cdf(double[] x, double[] y) {

  static Cdf of(double[] samples, int maxPoints) {
    if (maxPoints < 2) {
      throw new IllegalArgumentException("maxPoints must be >= 2: " + maxPoints);
    }
    double[] sorted = Arrays.stream(samples).filter(Double::isFinite).sorted().toArray();
    int n = sorted.length;
    int points = Math.min(n, maxPoints);
    double[] x = new double[points];
    double[] y = new double[points];
    for (int k = 0; k < points; k++) {
      int rank = points == 1 ? 0 : (int) Math.round((double) k * (n - 1) / (points - 1));
      x[k] = sorted[rank];
      y[k] = (rank + 1) / (double) n;
    }
    return new Cdf(x, y);
  }
}
