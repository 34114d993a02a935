package io.kvrouter.tools.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The results as a plain-text table for the terminal, one row per policy, under a two-line header
 * that groups the latency columns:
 *
 * <pre>
 *                              TTFT (ms)                         ITL (ms)        E2E (ms)
 * policy  requests  hit rate    mean     p50     p90     p99     mean     p99     mean     p99  out tok/s  max queue
 * kv            40     61.2%    12.3    10.1    20.0    25.3      2.1     3.4    123.4   180.2      510.2          7
 * </pre>
 *
 * An unknown hit rate shows as {@code -}.
 */
public final class ConsoleTable {
  private static final String GAP = "  ";

  private record Column(String group, String name, Function<PolicyRun, String> value) {}

  private static final List<Column> COLUMNS =
      List.of(
          new Column("", "policy", PolicyRun::policy),
          new Column("", "requests", r -> Integer.toString(r.requests())),
          new Column("", "hit rate", r -> r.hitRate() == null ? "-" : percent(r.hitRate())),
          new Column("TTFT (ms)", "mean", r -> oneDecimal(r.ttftMs().mean())),
          new Column("TTFT (ms)", "p50", r -> oneDecimal(r.ttftMs().p50())),
          new Column("TTFT (ms)", "p90", r -> oneDecimal(r.ttftMs().p90())),
          new Column("TTFT (ms)", "p99", r -> oneDecimal(r.ttftMs().p99())),
          new Column("ITL (ms)", "mean", r -> oneDecimal(r.itlMs().mean())),
          new Column("ITL (ms)", "p99", r -> oneDecimal(r.itlMs().p99())),
          new Column("E2E (ms)", "mean", r -> oneDecimal(r.e2eMs().mean())),
          new Column("E2E (ms)", "p99", r -> oneDecimal(r.e2eMs().p99())),
          new Column("", "out tok/s", r -> oneDecimal(r.outputTokensPerS())),
          new Column("", "max queue", r -> Integer.toString(r.maxQueue())));

  private ConsoleTable() {}

  /** The table, each line ending with a newline. */
  public static String render(List<PolicyRun> runs) {
    List<String[]> rows = new ArrayList<>();
    for (PolicyRun run : runs) {
      rows.add(COLUMNS.stream().map(c -> c.value().apply(run)).toArray(String[]::new));
    }
    int[] widths = new int[COLUMNS.size()];
    for (int c = 0; c < widths.length; c++) {
      widths[c] = COLUMNS.get(c).name().length();
      for (String[] row : rows) {
        widths[c] = Math.max(widths[c], row[c].length());
      }
    }
    StringBuilder groups = new StringBuilder();
    StringBuilder names = new StringBuilder();
    for (int c = 0; c < widths.length; c++) {
      String group = COLUMNS.get(c).group();
      boolean opensGroup = c == 0 || !group.equals(COLUMNS.get(c - 1).group());
      if (c > 0) {
        names.append(GAP);
      }
      if (opensGroup) {
        groups.append(" ".repeat(Math.max(0, names.length() - groups.length()))).append(group);
      }
      names.append(cell(COLUMNS.get(c).name(), widths[c], c == 0));
    }
    StringBuilder table = new StringBuilder();
    if (!groups.toString().isBlank()) {
      table.append(groups.toString().stripTrailing()).append('\n');
    }
    table.append(names).append('\n');
    for (String[] row : rows) {
      for (int c = 0; c < widths.length; c++) {
        table.append(c > 0 ? GAP : "").append(cell(row[c], widths[c], c == 0));
      }
      table.append('\n');
    }
    return table.toString();
  }

  /** The first column is left-aligned, numbers right-aligned. */
  private static String cell(String text, int width, boolean left) {
    String pad = " ".repeat(width - text.length());
    return left ? text + pad : pad + text;
  }

  private static String oneDecimal(double value) {
    return String.format(Locale.ROOT, "%.1f", value);
  }

  private static String percent(double rate) {
    return String.format(Locale.ROOT, "%.1f%%", rate * 100);
  }
}
