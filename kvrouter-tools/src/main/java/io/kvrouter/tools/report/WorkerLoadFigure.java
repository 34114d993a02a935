package io.kvrouter.tools.report;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Chart 3: requests on each worker over the replay, as small multiples: one chart per policy, one
 * line per worker. A policy that balances well draws lines that stay together; one that piles onto
 * a few workers draws lines that fan out. All charts share both axes, so their heights compare, and
 * a worker keeps its colour across them.
 */
final class WorkerLoadFigure {
  private static final int WIDTH = 372;
  private static final int HEIGHT = 220;
  private static final double END = 1;
  private static final double UNSCALED = 1;

  private WorkerLoadFigure() {}

  /** The figure, or empty when no policy recorded a timeline. */
  static Optional<String> html(List<PolicyRun> runs) {
    List<PolicyRun> recorded = Timelines.recorded(runs);
    if (recorded.isEmpty()) {
      return Optional.empty();
    }
    List<String> workers = workers(recorded);
    LineChart chart =
        new LineChart(
            WIDTH,
            HEIGHT,
            Timelines.axis(runs),
            new LineChart.Axis(new LinearScale(maxLoad(recorded), Numbers::compact), "requests"));
    StringBuilder body = new StringBuilder(legend(workers)).append("<div class=\"multiples\">\n");
    for (PolicyRun run : recorded) {
      Timeline timeline = run.timeline();
      List<Series> lines = new ArrayList<>();
      for (int w = 0; w < timeline.workers().size(); w++) {
        String worker = timeline.workers().get(w);
        lines.add(
            Timelines.series(
                worker,
                Palette.colour(workers.indexOf(worker)),
                timeline.workerLoad()[w],
                timeline.intervalSeconds(),
                END,
                UNSCALED));
      }
      body.append("<figure><figcaption>")
          .append(Xml.escape(run.policy()))
          .append("</figcaption>\n")
          .append(chart.svg("Requests per worker over time under " + run.policy(), lines))
          .append("</figure>\n");
    }
    body.append("</div>\n");
    return Optional.of(
        Section.html(
            "worker-load",
            "Load per worker over time",
            "Requests queued or running on each worker at the end of each interval.",
            body.toString()));
  }

  /** Every worker of any timeline, in order of first appearance, to give each one colour. */
  private static List<String> workers(List<PolicyRun> recorded) {
    Set<String> workers = new LinkedHashSet<>();
    for (PolicyRun run : recorded) {
      workers.addAll(run.timeline().workers());
    }
    return List.copyOf(workers);
  }

  private static String legend(List<String> workers) {
    List<Legend.Key> keys = new ArrayList<>();
    for (int w = 0; w < workers.size(); w++) {
      keys.add(new Legend.Key(workers.get(w), Palette.colour(w)));
    }
    return Legend.html(keys);
  }

  private static double maxLoad(List<PolicyRun> recorded) {
    double max = 0;
    for (PolicyRun run : recorded) {
      for (double[] load : run.timeline().workerLoad()) {
        for (double requests : load) {
          if (Double.isFinite(requests)) {
            max = Math.max(max, requests);
          }
        }
      }
    }
    return max;
  }
}
