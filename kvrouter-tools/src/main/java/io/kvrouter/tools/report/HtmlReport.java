package io.kvrouter.tools.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Writes a {@link RunReport} as {@code report.html}, the human-readable half of a replay's output:
 * the settings, the results table, and charts of the TTFT distribution, the hit rate over time and
 * each worker's load over time.
 *
 * <p>The file is self-contained: styles and charts (SVG, drawn here) are inline, and nothing is
 * fetched, so it opens offline from a {@code file://} URL and can be attached to a review as is. No
 * script runs in it; tooltips on the lines are SVG titles. The markup is XHTML-compatible HTML5
 * (every element closed, only XML's own entities), so XML tools can check and query it. The same
 * report renders to the same bytes: no timestamps, and everything in report order.
 */
public final class HtmlReport {
  private static final String STYLE =
      """
      body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;\
      color:#222;margin:24px auto;max-width:1200px;padding:0 16px;line-height:1.4}
      h1{font-size:1.5em;margin:0 0 12px}
      h2{font-size:1.15em;margin:28px 0 4px}
      p.note{color:#666;margin:0 0 8px;font-size:.9em}
      table{border-collapse:collapse;font-size:.9em}
      th,td{padding:4px 10px;border-bottom:1px solid #e4e4e4}
      table.settings th{text-align:left;font-weight:600;color:#555}
      table.results{font-variant-numeric:tabular-nums}
      table.results td{text-align:right}
      table.results thead th{background:#f5f5f5;text-align:center}
      table.results tbody th{text-align:left;font-weight:600;white-space:nowrap}
      td.best{background:#e3f4e1;font-weight:600}
      .swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px}
      ul.legend{list-style:none;padding:0;margin:4px 0;display:flex;flex-wrap:wrap;gap:4px 16px;\
      font-size:.9em}
      svg.chart{max-width:100%;height:auto;display:block}
      svg.chart text{font-size:11px;fill:#555}
      svg.chart text.axis-title{font-size:12px;fill:#333}
      svg.chart line.grid{stroke:#ececec;stroke-width:1}
      svg.chart rect.frame{fill:none;stroke:#bbb;stroke-width:1}
      svg.chart polyline{fill:none;stroke-width:1.75;stroke-linejoin:round}
      .multiples{display:flex;flex-wrap:wrap;gap:8px 24px}
      figure{margin:0}
      figcaption{font-weight:600;font-size:.9em}
      """;

  private HtmlReport() {}

  /** Writes {@link #render} to {@code file} in UTF-8, replacing it. */
  public static void write(RunReport report, Path file) {
    try {
      Files.writeString(file, render(report), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /** The report as one HTML document. */
  public static String render(RunReport report) {
    String title = Xml.escape(report.title());
    StringBuilder html = new StringBuilder();
    html.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
        .append("<title>")
        .append(title)
        .append("</title>\n")
        .append("<style>\n")
        .append(STYLE)
        .append("</style>\n</head>\n<body>\n")
        .append("<h1>")
        .append(title)
        .append("</h1>\n")
        .append(settings(report.settings()))
        .append(
            Section.html(
                "results",
                "Results",
                "Latencies in milliseconds; the best value of each column is highlighted.",
                ResultsTable.html(report.policies())));
    Stream.of(
            TtftCdfFigure.html(report.policies()),
            HitRateFigure.html(report.policies()),
            WorkerLoadFigure.html(report.policies()))
        .flatMap(Optional::stream)
        .forEach(html::append);
    return html.append("</body>\n</html>\n").toString();
  }

  private static String settings(Map<String, String> settings) {
    if (settings.isEmpty()) {
      return "";
    }
    StringBuilder html = new StringBuilder("<table class=\"settings\">\n");
    settings.forEach(
        (name, value) ->
            html.append("<tr><th scope=\"row\">")
                .append(Xml.escape(name))
                .append("</th><td>")
                .append(Xml.escape(value))
                .append("</td></tr>\n"));
    return html.append("</table>\n").toString();
  }
}
