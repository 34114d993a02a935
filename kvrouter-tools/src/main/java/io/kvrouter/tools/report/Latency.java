package io.kvrouter.tools.report;

import java.util.Arrays;

/**
 * Mean and percentiles of a latency sample, in milliseconds. Percentiles are nearest-rank: {@code
 * pN} is the smallest sample with at least N% of the samples at or below it. An empty sample has
 * every value 0.
 */
public record Latency(double mean, double p50, double p90, double p99) {

  public static final Latency EMPTY = new Latency(0, 0, 0, 0);

  public static Latency of(double[] samples) {
    if (samples.length == 0) {
      return EMPTY;
    }
    double[] sorted = samples.clone();
    Arrays.sort(sorted);
    double sum = 0;
    for (double s : sorted) {
      sum += s;
    }
    return new Latency(
        sum / sorted.length,
        percentile(sorted, 50),
        percentile(sorted, 90),
        percentile(sorted, 99));
  }

  /** Nearest-rank percentile of an ascending, non-empty sample. */
  public static double percentile(double[] sorted, double percent) {
    int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }
}
