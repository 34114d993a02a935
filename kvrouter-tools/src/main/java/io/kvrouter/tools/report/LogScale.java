package io.kvrouter.tools.report;

import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleFunction;

/**
 * A base-10 logarithmic axis spanning whole decades, for values such as time to first token that
 * run from milliseconds (cache hits on an idle worker) to minutes (a queue that never drains).
 * Ticks sit on every decade; when the axis spans at most two decades, also on 2 and 5 times each,
 * so a narrow axis still has enough to read by.
 */
final class LogScale implements Scale {
  private static final int DENSE_DECADES = 2;

  private final int lowExponent;
  private final int highExponent;
  private final DoubleFunction<String> label;

  /**
   * @param min the smallest value to show, {@code > 0}
   * @param max the largest value to show, {@code >= min}
   * @param label formats a tick value
   */
  LogScale(double min, double max, DoubleFunction<String> label) {
    if (!(min > 0) || !(max >= min)) {
      throw new IllegalArgumentException("need 0 < min <= max: " + min + ", " + max);
    }
    this.lowExponent = (int) Math.floor(Math.log10(min));
    this.highExponent = Math.max(lowExponent + 1, (int) Math.ceil(Math.log10(max)));
    this.label = label;
  }

  @Override
  public double fraction(double value) {
    double position =
        value > 0 ? (Math.log10(value) - lowExponent) / (highExponent - lowExponent) : 0;
    return Math.max(0, Math.min(1, position));
  }

  @Override
  public List<Double> ticks() {
    boolean dense = highExponent - lowExponent <= DENSE_DECADES;
    List<Double> ticks = new ArrayList<>();
    for (int exponent = lowExponent; exponent < highExponent; exponent++) {
      double decade = Math.pow(10, exponent);
      ticks.add(decade);
      if (dense) {
        ticks.add(2 * decade);
        ticks.add(5 * decade);
      }
    }
    ticks.add(Math.pow(10, highExponent));
    return ticks;
  }

  @Override
  public String label(double tick) {
    return label.apply(tick);
  }
}
