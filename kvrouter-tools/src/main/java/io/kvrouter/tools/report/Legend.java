package io.kvrouter.tools.report;

import java.util.List;

/**
 * A chart's legend as an HTML list of colour swatches and names. Kept out of the SVG so long or
 * many names wrap with the page instead of being cut off at the chart's edge.
 */
final class Legend {
  private Legend() {}

  /** One entry of a legend. */
  record Key(String name, String colour) {}

  /** The legend of one chart's lines. */
  static String of(List<Series> series) {
    return html(series.stream().map(s -> new Key(s.name(), s.colour())).toList());
  }

  static String html(List<Key> keys) {
    StringBuilder html = new StringBuilder("<ul class=\"legend\">");
    for (Key key : keys) {
      html.append("<li>")
          .append(swatch(key.colour()))
          .append(Xml.escape(key.name()))
          .append("</li>");
    }
    return html.append("</ul>\n").toString();
  }

  /** A small square of {@code colour}, also used to key the results table to the charts. */
  static String swatch(String colour) {
    return "<span class=\"swatch\" style=\"background:" + Xml.escape(colour) + "\"></span>";
  }
}
