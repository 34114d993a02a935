package io.kvrouter.tools.report;

/**
 * One line of a chart: its points, in drawing order, and how it is labelled.
 *
 * @param name shown in the legend and as the line's tooltip
 * @param colour a CSS colour
 * @param x the points' x values
 * @param y the points' y values, as many as {@code x}
 */
record Series(String name, String colour, double[] x, double[] y) {
  Series {
    if (x.length != y.length) {
      throw new IllegalArgumentException(x.length + " x values for " + y.length + " y values");
    }
  }
}
