package io.kvrouter.tools.bench;

import io.kvrouter.tools.report.Timeline;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The router as polled at the end of each interval of a live run, turned into a {@link Timeline}.
 * Interval {@code i} (from 1) ends {@code i} intervals after the start. Its hit rate is the mean
 * predicted hit rate of the requests the router recorded since the previous reading it has (the
 * baseline taken before the start, for the first); its worker loads are the requests each worker
 * had in flight when polled. A poll that failed, or a router that does not export a reading, leaves
 * {@code NaN}. Samples arrive on an event loop and are read on the caller's thread, hence the
 * locks.
 */
final class TimelineRecorder {
  /**
   * One poll's answer.
   *
   * @param loads requests in flight per worker id, in the router's order; null when not known
   * @param hits the hit-rate summary; null when not known
   */
  record Sample(Map<String, Double> loads, HitCounts hits) {}

  private final HitCounts baseline;
  private final TreeMap<Integer, Sample> samples = new TreeMap<>();
  private int lastInterval;

  /**
   * @param baseline the hit-rate summary just before the start; null when it could not be read
   */
  TimelineRecorder(HitCounts baseline) {
    this.baseline = baseline;
  }

  /** The poll at the end of interval {@code interval}; ignored once {@link #last} was called. */
  synchronized void sample(int interval, Sample sample) {
    if (lastInterval == 0) {
      samples.put(interval, sample);
    }
  }

  /** The final poll, after the run, ending the last (maybe partial) interval {@code interval}. */
  synchronized void last(int interval, Sample sample) {
    samples.tailMap(interval, true).clear();
    samples.put(interval, sample);
    lastInterval = interval;
  }

  /** The mean predicted hit rate over the whole run; null when unknown or nothing was routed. */
  synchronized Double hitRate() {
    Sample end = samples.get(lastInterval);
    if (baseline == null || end == null || end.hits() == null) {
      return null;
    }
    return end.hits().rateSince(baseline);
  }

  /** The run's timeline, up to the interval of {@link #last}. */
  synchronized Timeline timeline(double intervalSeconds) {
    int intervals = Math.max(1, lastInterval);
    double[] hitRate = new double[intervals];
    HitCounts previous = baseline;
    Set<String> workers = new LinkedHashSet<>();
    for (int i = 1; i <= intervals; i++) {
      Sample sample = samples.get(i);
      HitCounts hits = sample == null ? null : sample.hits();
      Double rate = hits == null || previous == null ? null : hits.rateSince(previous);
      hitRate[i - 1] = rate == null ? Double.NaN : rate;
      if (hits != null) {
        previous = hits;
      }
      if (sample != null && sample.loads() != null) {
        workers.addAll(sample.loads().keySet());
      }
    }
    List<String> names = new ArrayList<>(workers);
    double[][] loads = new double[names.size()][intervals];
    for (double[] series : loads) {
      Arrays.fill(series, Double.NaN);
    }
    samples.forEach(
        (interval, sample) -> {
          if (interval <= intervals && sample.loads() != null) {
            sample
                .loads()
                .forEach((worker, load) -> loads[names.indexOf(worker)][interval - 1] = load);
          }
        });
    return new Timeline(intervalSeconds, names, hitRate, loads);
  }
}
