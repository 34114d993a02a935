package io.kvrouter.tools.report;

import java.util.Arrays;
import java.util.List;

/**
 * Puts {@link Timeline} intervals on a chart's time axis. All time charts of a report share one
 * axis, as long as the longest timeline, so the same moment sits at the same place in each.
 */
final class Timelines {
  private Timelines() {}

  /** The runs that recorded a timeline, in report order. */
  static List<PolicyRun> recorded(List<PolicyRun> runs) {
    return runs.stream().filter(run -> run.timeline() != null).toList();
  }

  /** Seconds from 0 to the end of the longest timeline of {@code runs}. */
  static LineChart.Axis axis(List<PolicyRun> runs) {
    double seconds = 0;
    for (PolicyRun run : recorded(runs)) {
      Timeline timeline = run.timeline();
      int intervals = timeline.hitRate().length;
      for (double[] load : timeline.workerLoad()) {
        intervals = Math.max(intervals, load.length);
      }
      seconds = Math.max(seconds, intervals * timeline.intervalSeconds());
    }
    return new LineChart.Axis(new LinearScale(seconds, Numbers::compact), "time since start (s)");
  }

  /**
   * A line through one value per interval, leaving out intervals without a value (NaN), so a gap in
   * the data is bridged rather than drawn as a drop to zero.
   *
   * @param position where in its interval a value is drawn: 0.5 for a value over the interval, 1
   *     for a value at its end
   * @param factor what values are multiplied by, e.g. 100 to show a fraction in percent
   */
  static Series series(
      String name,
      String colour,
      double[] perInterval,
      double intervalSeconds,
      double position,
      double factor) {
    int count = (int) Arrays.stream(perInterval).filter(Double::isFinite).count();
    double[] x = new double[count];
    double[] y = new double[count];
    int point = 0;
    for (int i = 0; i < perInterval.length; i++) {
      if (Double.isFinite(perInterval[i])) {
        x[point] = (i + position) * intervalSeconds;
        y[point] = perInterval[i] * factor;
        point++;
      }
    }
    return new Series(name, colour, x, y);
  }
}
