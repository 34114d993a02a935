package io.kvrouter.tools.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Chart 1: the distribution of time to first token, one CDF line per policy. The x axis is
 * logarithmic because TTFT spans orders of magnitude within one run: a cache hit on an idle worker
 * takes milliseconds, a request behind a long queue tens of seconds, and both ends matter.
 */
final class TtftCdfFigure {
  /** Points per line at most; enough for a smooth curve, few enough for a small file. */
  static final int MAX_POINTS = 300;

  private static final int WIDTH = 760;
  private static final int HEIGHT = 320;

  private TtftCdfFigure() {}

  /** The figure, or empty when no policy has TTFT samples. */
  static Optional<String> html(List<PolicyRun> runs) {
    List<Series> lines = new ArrayList<>();
    double min = Double.POSITIVE_INFINITY;
    double max = 0;
    for (int i = 0; i < runs.size(); i++) {
      PolicyRun run = runs.get(i);
      Cdf cdf = Cdf.of(run.ttftSamplesMs(), MAX_POINTS);
      if (cdf.x().length == 0) {
        continue;
      }
      lines.add(new Series(run.policy(), Palette.colour(i), cdf.x(), cdf.y()));
      for (double ms : cdf.x()) {
        if (ms > 0) {
          min = Math.min(min, ms);
        }
      }
      max = Math.max(max, cdf.x()[cdf.x().length - 1]);
    }
    if (lines.isEmpty()) {
      return Optional.empty();
    }
    double low = Double.isFinite(min) ? min : 1;
    LineChart chart =
        new LineChart(
            WIDTH,
            HEIGHT,
            new LineChart.Axis(
                new LogScale(low, Math.max(low, max), TtftCdfFigure::duration),
                "time to first token (log scale)"),
            new LineChart.Axis(new LinearScale(1, Numbers::compact), "fraction of requests"));
    String body = Legend.of(lines) + chart.svg("TTFT CDF per policy", lines);
    return Optional.of(
        Section.html(
            "ttft-cdf",
            "Time to first token",
            "Fraction of requests whose first token came within the time on the x axis; "
                + "further left and higher is better.",
            body));
  }

  /** A tick in milliseconds, read in seconds from one second up. */
  private static String duration(double ms) {
    return ms >= 1000 ? Numbers.compact(ms / 1000) + " s" : Numbers.compact(ms) + " ms";
  }
}
