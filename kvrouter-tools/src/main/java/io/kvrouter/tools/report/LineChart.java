package io.kvrouter.tools.report;

import java.util.List;

/**
 * Draws series as an inline SVG line chart: a frame, grid lines with tick labels on both axes, axis
 * titles, and one {@code <polyline>} per series (with the series' name as its tooltip, which
 * browsers show without any script). Nothing but the polylines is drawn as a polyline, so a chart's
 * lines can be counted. The legend is not part of it; see {@link Legend}.
 */
final class LineChart {
  private static final int LEFT = 58;
  private static final int RIGHT = 28;
  private static final int TOP = 14;
  private static final int BOTTOM = 42;
  private static final int TICK_GAP = 5;

  private final int width;
  private final int height;
  private final Axis x;
  private final Axis y;

  /** An axis of a chart: its scale and its title (which should name the unit). */
  record Axis(Scale scale, String title) {}

  LineChart(int width, int height, Axis x, Axis y) {
    this.width = width;
    this.height = height;
    this.x = x;
    this.y = y;
  }

  /**
   * The chart as an {@code <svg>} element, on lines of its own.
   *
   * @param description what the chart shows, for screen readers
   */
  String svg(String description, List<Series> series) {
    StringBuilder svg = new StringBuilder();
    svg.append("<svg class=\"chart\" viewBox=\"0 0 ")
        .append(width)
        .append(' ')
        .append(height)
        .append("\" width=\"")
        .append(width)
        .append("\" height=\"")
        .append(height)
        .append("\" role=\"img\"><title>")
        .append(Xml.escape(description))
        .append("</title>\n");
    grid(svg);
    svg.append("<rect class=\"frame\" x=\"")
        .append(LEFT)
        .append("\" y=\"")
        .append(TOP)
        .append("\" width=\"")
        .append(plotWidth())
        .append("\" height=\"")
        .append(plotHeight())
        .append("\"/>\n");
    for (Series line : series) {
      polyline(svg, line);
    }
    axisTitles(svg);
    return svg.append("</svg>\n").toString();
  }

  private void grid(StringBuilder svg) {
    double bottom = TOP + plotHeight();
    for (double tick : x.scale().ticks()) {
      String px = Numbers.coordinate(px(tick));
      line(svg, px, Numbers.coordinate(TOP), px, Numbers.coordinate(bottom));
      text(svg, "middle", px, Numbers.coordinate(bottom + TICK_GAP + 10), x.scale().label(tick));
    }
    for (double tick : y.scale().ticks()) {
      String py = Numbers.coordinate(py(tick));
      line(svg, Numbers.coordinate(LEFT), py, Numbers.coordinate(LEFT + plotWidth()), py);
      text(
          svg,
          "end",
          Numbers.coordinate(LEFT - TICK_GAP),
          Numbers.coordinate(py(tick) + 4),
          y.scale().label(tick));
    }
  }

  private void polyline(StringBuilder svg, Series series) {
    svg.append("<polyline stroke=\"").append(Xml.escape(series.colour())).append("\" points=\"");
    for (int i = 0; i < series.x().length; i++) {
      if (i > 0) {
        svg.append(' ');
      }
      svg.append(Numbers.coordinate(px(series.x()[i])))
          .append(',')
          .append(Numbers.coordinate(py(series.y()[i])));
    }
    svg.append("\"><title>").append(Xml.escape(series.name())).append("</title></polyline>\n");
  }

  private void axisTitles(StringBuilder svg) {
    text(
        svg,
        "middle",
        Numbers.coordinate(LEFT + plotWidth() / 2.0),
        Numbers.coordinate(height - 6),
        x.title());
    double middle = TOP + plotHeight() / 2.0;
    svg.append("<text class=\"axis-title\" text-anchor=\"middle\" transform=\"translate(12,")
        .append(Numbers.coordinate(middle))
        .append(") rotate(-90)\">")
        .append(Xml.escape(y.title()))
        .append("</text>\n");
  }

  private static void line(StringBuilder svg, String x1, String y1, String x2, String y2) {
    svg.append("<line class=\"grid\" x1=\"")
        .append(x1)
        .append("\" y1=\"")
        .append(y1)
        .append("\" x2=\"")
        .append(x2)
        .append("\" y2=\"")
        .append(y2)
        .append("\"/>\n");
  }

  private static void text(StringBuilder svg, String anchor, String x, String y, String text) {
    svg.append("<text text-anchor=\"")
        .append(anchor)
        .append("\" x=\"")
        .append(x)
        .append("\" y=\"")
        .append(y)
        .append("\">")
        .append(Xml.escape(text))
        .append("</text>\n");
  }

  private int plotWidth() {
    return width - LEFT - RIGHT;
  }

  private int plotHeight() {
    return height - TOP - BOTTOM;
  }

  private double px(double value) {
    return LEFT + x.scale().fraction(value) * plotWidth();
  }

  /** SVG's y grows downwards; the chart's upwards. */
  private double py(double value) {
    return TOP + (1 - y.scale().fraction(value)) * plotHeight();
  }
}
