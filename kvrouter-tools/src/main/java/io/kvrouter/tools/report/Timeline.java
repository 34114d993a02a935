package io.kvrouter.tools.report;

import java.util.List;
import java.util.Objects;

/**
 * A replay over time, in fixed intervals from its start, for the report's charts.
 *
 * @param intervalSeconds length of each interval
 * @param workers worker names, in the order of {@code workerLoad}
 * @param hitRate per interval, prompt tokens served from cache over prompt tokens of the requests
 *     that started in it (admitted by an engine in the simulator, routed in a live benchmark, where
 *     it is the router's mean prediction); {@code NaN} for an interval without requests or when
 *     hits are not known
 * @param workerLoad per worker, per interval: requests on the worker (queued or running) at the
 *     interval's end
 */
public record Timeline(
    double intervalSeconds, List<String> workers, double[] hitRate, double[][] workerLoad) {

  public Timeline {
    if (!(intervalSeconds > 0)) {
      throw new IllegalArgumentException("intervalSeconds must be > 0: " + intervalSeconds);
    }
    workers = List.copyOf(workers);
    Objects.requireNonNull(hitRate, "hitRate");
    if (workerLoad.length != workers.size()) {
      throw new IllegalArgumentException(
          workerLoad.length + " load series for " + workers.size() + " workers");
    }
  }
}
