package io.kvrouter.tools.report;

import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleFunction;
import java.util.function.Function;

/**
 * The report's results table: one row per policy, one column per measure, grouped under a two-row
 * header (TTFT over mean, p50, p90 and p99, ...). In each column where lower or higher is better,
 * the best cell is highlighted, and so is any cell that reads the same; a column where every cell
 * reads the same has no highlight, since there is nothing to tell apart. The policy cell carries
 * the policy's chart colour.
 */
final class ResultsTable {
  private static final String MISSING = "\u2014";

  private ResultsTable() {}

  /** Which end of a column is the good one. */
  enum Better {
    LOWER,
    HIGHER,
    NEITHER
  }

  /**
   * A column of the table.
   *
   * @param group the header cell shared with its neighbours, or null for a column headed alone
   * @param name the column's own header
   * @param value the column's value for a run; null when unknown
   */
  record Column(
      String group,
      String name,
      Better better,
      Function<PolicyRun, Double> value,
      DoubleFunction<String> format) {}

  static final List<Column> COLUMNS =
      List.of(
          count("Requests", Better.NEITHER, r -> (double) r.requests()),
          new Column(null, "Hit rate", Better.HIGHER, PolicyRun::hitRate, Numbers::percent),
          latency("TTFT (ms)", "mean", Better.LOWER, r -> r.ttftMs().mean()),
          latency("TTFT (ms)", "p50", Better.LOWER, r -> r.ttftMs().p50()),
          latency("TTFT (ms)", "p90", Better.LOWER, r -> r.ttftMs().p90()),
          latency("TTFT (ms)", "p99", Better.LOWER, r -> r.ttftMs().p99()),
          latency("ITL (ms)", "mean", Better.LOWER, r -> r.itlMs().mean()),
          latency("ITL (ms)", "p99", Better.LOWER, r -> r.itlMs().p99()),
          latency("E2E (ms)", "mean", Better.LOWER, r -> r.e2eMs().mean()),
          latency("E2E (ms)", "p99", Better.LOWER, r -> r.e2eMs().p99()),
          new Column(
              null,
              "Output tok/s",
              Better.HIGHER,
              PolicyRun::outputTokensPerS,
              v -> Numbers.grouped(v, 1)),
          count("Max queue", Better.LOWER, r -> (double) r.maxQueue()));

  private static Column count(String name, Better better, Function<PolicyRun, Double> value) {
    return new Column(null, name, better, value, v -> Numbers.grouped(v, 0));
  }

  private static Column latency(
      String group, String name, Better better, Function<PolicyRun, Double> value) {
    return new Column(group, name, better, value, Numbers::milliseconds);
  }

  static String html(List<PolicyRun> runs) {
    StringBuilder html = new StringBuilder("<table class=\"results\">\n<thead>\n");
    header(html);
    html.append("</thead>\n<tbody>\n");
    List<List<String>> cells = new ArrayList<>();
    for (PolicyRun run : runs) {
      cells.add(COLUMNS.stream().map(column -> text(column, run)).toList());
    }
    List<String> best = COLUMNS.stream().map(column -> best(column, runs)).toList();
    for (int row = 0; row < runs.size(); row++) {
      html.append("<tr><th scope=\"row\">")
          .append(Legend.swatch(Palette.colour(row)))
          .append(Xml.escape(runs.get(row).policy()))
          .append("</th>");
      for (int col = 0; col < COLUMNS.size(); col++) {
        String text = cells.get(row).get(col);
        boolean highlighted = text.equals(best.get(col)) && distinguishes(cells, col);
        html.append(highlighted ? "<td class=\"best\">" : "<td>")
            .append(Xml.escape(text))
            .append("</td>");
      }
      html.append("</tr>\n");
    }
    return html.append("</tbody>\n</table>\n").toString();
  }

  /** Two header rows: groups spanning their columns, then the grouped columns' own names. */
  private static void header(StringBuilder html) {
    html.append("<tr><th rowspan=\"2\">Policy</th>");
    for (int col = 0; col < COLUMNS.size(); ) {
      String group = COLUMNS.get(col).group();
      if (group == null) {
        html.append("<th rowspan=\"2\">")
            .append(Xml.escape(COLUMNS.get(col).name()))
            .append("</th>");
        col++;
        continue;
      }
      int span = 0;
      while (col + span < COLUMNS.size() && group.equals(COLUMNS.get(col + span).group())) {
        span++;
      }
      html.append("<th colspan=\"")
          .append(span)
          .append("\">")
          .append(Xml.escape(group))
          .append("</th>");
      col += span;
    }
    html.append("</tr>\n<tr>");
    for (Column column : COLUMNS) {
      if (column.group() != null) {
        html.append("<th>").append(Xml.escape(column.name())).append("</th>");
      }
    }
    html.append("</tr>\n");
  }

  private static String text(Column column, PolicyRun run) {
    Double value = column.value().apply(run);
    return known(value) ? column.format().apply(value) : MISSING;
  }

  /** The best cell's text in {@code column}; null when it has no better end or no values. */
  private static String best(Column column, List<PolicyRun> runs) {
    if (column.better() == Better.NEITHER) {
      return null;
    }
    Double best = null;
    for (PolicyRun run : runs) {
      Double value = column.value().apply(run);
      if (known(value)
          && (best == null || (column.better() == Better.LOWER ? value < best : value > best))) {
        best = value;
      }
    }
    return best == null ? null : column.format().apply(best);
  }

  /** Whether the cells of column {@code col} do not all read the same. */
  private static boolean distinguishes(List<List<String>> cells, int col) {
    return cells.stream().map(row -> row.get(col)).distinct().count() > 1;
  }

  private static boolean known(Double value) {
    return value != null && Double.isFinite(value);
  }
}
