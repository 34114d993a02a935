package io.kvrouter.tools.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Chart 2: the KV cache hit rate over the replay, one line per policy. It shows what a single
 * hit-rate number hides: how long a policy takes to warm the caches up, and whether it keeps them
 * warm as the load shifts.
 */
final class HitRateFigure {
  private static final int WIDTH = 760;
  private static final int HEIGHT = 280;
  private static final double MIDDLE = 0.5;
  private static final double PERCENT = 100;

  private HitRateFigure() {}

  /** The figure, or empty when no policy recorded a hit rate over time. */
  static Optional<String> html(List<PolicyRun> runs) {
    List<Series> lines = new ArrayList<>();
    for (int i = 0; i < runs.size(); i++) {
      Timeline timeline = runs.get(i).timeline();
      if (timeline == null) {
        continue;
      }
      Series line =
          Timelines.series(
              runs.get(i).policy(),
              Palette.colour(i),
              timeline.hitRate(),
              timeline.intervalSeconds(),
              MIDDLE,
              PERCENT);
      if (line.x().length > 0) {
        lines.add(line);
      }
    }
    if (lines.isEmpty()) {
      return Optional.empty();
    }
    LineChart chart =
        new LineChart(
            WIDTH,
            HEIGHT,
            Timelines.axis(runs),
            new LineChart.Axis(
                new LinearScale(PERCENT, v -> Numbers.compact(v) + "%"), "KV cache hit rate"));
    String body = Legend.of(lines) + chart.svg("KV cache hit rate over time per policy", lines);
    return Optional.of(
        Section.html(
            "hit-rate",
            "KV cache hit rate over time",
            "Prompt tokens served from cache over all prompt tokens of the requests that started"
                + " in each interval (simulated: admitted by an engine; live: the router's mean"
                + " prediction for the requests it routed); intervals without requests are left"
                + " out.",
            body));
  }
}
