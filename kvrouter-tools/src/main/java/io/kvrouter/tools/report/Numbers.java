package io.kvrouter.tools.report;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;

/**
 * Number formatting for the HTML report, locale-independent so the same run renders the same bytes
 * on any machine.
 */
final class Numbers {
  private Numbers() {}

  /**
   * The shortest plain decimal for a tick value, at most 6 decimals: {@code 0.6} rather than the
   * {@code 0.6000000000000001} that adding steps of 0.2 produces.
   */
  static String compact(double value) {
    BigDecimal rounded = BigDecimal.valueOf(value).setScale(6, RoundingMode.HALF_UP);
    return rounded.signum() == 0 ? "0" : rounded.stripTrailingZeros().toPlainString();
  }

  /** An SVG coordinate: a tenth of a pixel is finer than any screen shows. */
  static String coordinate(double value) {
    return String.format(Locale.ROOT, "%.1f", value);
  }

  /**
   * A latency for the results table, with fewer decimals as it grows: 3.14, 31.4, 314, 3,142 ms.
   */
  static String milliseconds(double ms) {
    double magnitude = Math.abs(ms);
    int decimals = magnitude < 10 ? 2 : magnitude < 100 ? 1 : 0;
    return grouped(ms, decimals);
  }

  /** A fraction as a percentage with one decimal: {@code 0.4567} is {@code 45.7%}. */
  static String percent(double fraction) {
    return String.format(Locale.ROOT, "%.1f%%", fraction * 100);
  }

  /** {@code value} with thousands grouped and {@code decimals} decimals. */
  static String grouped(double value, int decimals) {
    return String.format(Locale.ROOT, "%,." + decimals + "f", value);
  }
}
