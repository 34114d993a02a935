package io.kvrouter.tools.report;

import java.util.List;

/** Maps data values onto a chart axis and says where its ticks go and how they read. */
interface Scale {

  /**
   * Where {@code value} falls along the axis: 0 at its low end, 1 at its high end. Values outside
   * the axis are clamped to it, so a stray sample bends a line at the edge instead of leaving the
   * chart.
   */
  double fraction(double value);

  /** The tick values, ascending, all within the axis. */
  List<Double> ticks();

  /** A tick's label, with its unit where the axis has one. */
  String label(double tick);
}
