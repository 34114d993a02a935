package io.kvrouter.tools.bench;

import io.kvrouter.tools.report.Timeline;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Polls the router once per interval during a run, for the timeline: its workers' requests in
 * flight and its predicted hit-rate summary. A fleet of routers reads as one: each worker's
 * requests in flight and the hit-rate summaries are summed over the routers. A poll still
 * unanswered when the next is due makes that one skip, so a slow router is not piled on; its
 * interval shows {@code NaN}.
 */
final class RouterWatcher {
  private final Vertx vertx;
  private final List<RouterApi> routers;
  private final long intervalNanos;
  private TimelineRecorder recorder;
  private long startNanos;
  private long timer;
  private int ticks;
  private boolean polling;

  RouterWatcher(Vertx vertx, List<RouterApi> routers, Duration interval) {
    this.vertx = vertx;
    this.routers = List.copyOf(routers);
    this.intervalNanos = interval.toNanos();
  }

  /** The routers' hit-rate summary now; failed when a {@code /metrics} cannot be read. */
  Future<HitCounts> hitCounts() {
    List<Future<HitCounts>> each =
        routers.stream().map(api -> api.metrics().map(RouterMetrics::hitCounts)).toList();
    return Future.all(each)
        .map(all -> each.stream().map(Future::result).reduce(HitCounts.ZERO, HitCounts::plus));
  }

  /** Each worker's requests in flight, summed over the routers; failed when one cannot tell. */
  private Future<Map<String, Double>> workerLoads() {
    List<Future<Map<String, Double>>> each = routers.stream().map(RouterApi::workerLoads).toList();
    return Future.all(each)
        .map(
            all -> {
              Map<String, Double> sum = new LinkedHashMap<>();
              each.forEach(loads -> loads.result().forEach((w, n) -> sum.merge(w, n, Double::sum)));
              return sum;
            });
  }

  /**
   * Starts polling: interval 1 ends one interval after {@code startNanos}.
   *
   * @param baseline the hit-rate summary before the run; null when unknown
   */
  void start(long startNanos, HitCounts baseline) {
    this.startNanos = startNanos;
    this.recorder = new TimelineRecorder(baseline);
    this.timer = vertx.setPeriodic(Math.max(1, intervalNanos / 1_000_000), id -> tick());
  }

  /** Stops polling and takes the last sample, for the interval holding {@code endNanos}. */
  Future<Void> finish(long endNanos) {
    vertx.cancelTimer(timer);
    int last = (int) Math.max(1, (endNanos - startNanos + intervalNanos - 1) / intervalNanos);
    return poll()
        .map(
            sample -> {
              recorder.last(last, sample);
              return null;
            });
  }

  /** The run's mean predicted hit rate; null when unknown. Valid after {@link #finish}. */
  Double hitRate() {
    return recorder.hitRate();
  }

  /** Valid after {@link #finish}. */
  Timeline timeline() {
    return recorder.timeline(intervalNanos / 1e9);
  }

  /** On the timer's event loop, so {@code ticks} and {@code polling} need no lock. */
  private void tick() {
    int interval = ++ticks;
    if (polling) {
      return;
    }
    polling = true;
    poll()
        .onComplete(
            done -> {
              polling = false;
              recorder.sample(interval, done.result());
            });
  }

  /** Both readings; a failed one is null in the sample. Never fails. */
  private Future<TimelineRecorder.Sample> poll() {
    Future<Map<String, Double>> loads = workerLoads().otherwiseEmpty();
    Future<HitCounts> hits = hitCounts().otherwiseEmpty();
    return Future.all(loads, hits)
        .map(v -> new TimelineRecorder.Sample(loads.result(), hits.result()));
  }
}
