package io.kvrouter.tools.report;

import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleFunction;

/**
 * A linear axis from 0 up to a round number at or above the data's maximum, with about five ticks
 * at steps of 1, 2 or 5 times a power of ten, so tick labels read as round numbers.
 */
final class LinearScale implements Scale {
  private static final int TARGET_TICKS = 5;

  private final double step;
  private final double max;
  private final DoubleFunction<String> label;

  /**
   * @param dataMax the largest value to show; a value that is not positive gets an axis of 0..1
   * @param label formats a tick value, e.g. {@code v -> Numbers.compact(v) + "%"}
   */
  LinearScale(double dataMax, DoubleFunction<String> label) {
    double top = dataMax > 0 && Double.isFinite(dataMax) ? dataMax : 1;
    this.step = niceStep(top / TARGET_TICKS);
    this.max = Math.ceil(top / step - 1e-9) * step;
    this.label = label;
  }

  /** The smallest of 1, 2, 5 or 10 times a power of ten that is at least {@code raw}. */
  static double niceStep(double raw) {
    double power = Math.pow(10, Math.floor(Math.log10(raw)));
    double mantissa = raw / power;
    double nice = mantissa <= 1 ? 1 : mantissa <= 2 ? 2 : mantissa <= 5 ? 5 : 10;
    return nice * power;
  }

  @Override
  public double fraction(double value) {
    return Math.max(0, Math.min(1, value / max));
  }

  @Override
  public List<Double> ticks() {
    List<Double> ticks = new ArrayList<>();
    long count = Math.round(max / step);
    for (long i = 0; i <= count; i++) {
      ticks.add(i * step);
    }
    return ticks;
  }

  @Override
  public String label(double tick) {
    return label.apply(tick);
  }
}
