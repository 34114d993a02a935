package io.kvrouter.bench;

import java.util.Arrays;
import java.util.Locale;

/**
 * A rate measured as JMH measures: rounds for {@link #WARM_UP_SECONDS} first, discarded (the JIT of
 * this codebase takes 10–20 s to settle, and short rounds before that measure compilation as much
 * as the code), then {@link #MEASURED_ROUNDS} rounds whose median is reported. Every round is
 * printed to stderr, the measured ones with their spread.
 */
final class WarmedRate {
  static final double WARM_UP_SECONDS = 15;
  static final int MEASURED_ROUNDS = 7;

  /** One round, returning a rate (higher is faster). */
  interface Round {
    double rate() throws Exception;
  }

  private WarmedRate() {}

  static double median(String what, Round round) throws Exception {
    long start = System.nanoTime();
    for (int i = 1; (System.nanoTime() - start) / 1e9 < WARM_UP_SECONDS; i++) {
      double rate = round.rate();
      System.err.printf(
          Locale.ROOT,
          "[warm-up] %s, round %d at %.1f s: %,.0f/s%n",
          what,
          i,
          (System.nanoTime() - start) / 1e9,
          rate);
    }
    double[] rates = new double[MEASURED_ROUNDS];
    for (int i = 0; i < rates.length; i++) {
      rates[i] = round.rate();
      System.err.printf(Locale.ROOT, "[measured] %s, round %d: %,.0f/s%n", what, i + 1, rates[i]);
    }
    Arrays.sort(rates);
    double median = rates[rates.length / 2];
    System.err.printf(
        Locale.ROOT,
        "[measured] %s: median %,.0f/s, min %,.0f, max %,.0f%n",
        what,
        median,
        rates[0],
        rates[rates.length - 1]);
    return median;
  }
}
