package io.kvrouter.routing;

import io.kvrouter.protocol.KvEventFeed;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerLoadReport;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.WorkerStatus;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/** The router's live view of one worker: health, requests in flight, its own load reports. */
final class WorkerState {
  /** A load report older than this is not trusted: the worker, or its event plane, is gone. */
  static final long LOAD_REPORT_TTL_NANOS = 10_000_000_000L;

  final WorkerEndpoint endpoint;
  final long totalKvBlocks;
  /** The worker's one data-parallel rank (static workers run without data parallelism). */
  final WorkerRank rank;
  final AtomicBoolean healthy = new AtomicBoolean(true);
  final AtomicInteger activeRequests = new AtomicInteger();

  WorkerState(RouteTarget target) {
    this.endpoint = target.endpoint();
    this.totalKvBlocks = target.totalKvBlocks();
    this.rank = WorkerRank.of(endpoint.workerId());
  }

  String id() {
    return endpoint.workerId();
  }

  /** Reports how this worker's KV cache events are followed, once a subscriber follows them. */
  volatile Supplier<KvEventFeed> kvEventFeed;

  /** The worker's latest load report and when it arrived (read together, written together). */
  private volatile TimedReport loadReport;

  private record TimedReport(WorkerLoadReport report, long nanos) {}

  void reportLoad(WorkerLoadReport report) {
    loadReport = new TimedReport(report, System.nanoTime());
  }

  /** The latest load report, if younger than {@link #LOAD_REPORT_TTL_NANOS}. */
  Optional<WorkerLoadReport> freshLoadReport() {
    TimedReport timed = loadReport;
    if (timed == null || System.nanoTime() - timed.nanos() > LOAD_REPORT_TTL_NANOS) {
      return Optional.empty();
    }
    return Optional.of(timed.report());
  }

  /** The declared KV capacity, else the one the worker reports, else 0 (unknown). */
  long effectiveTotalKvBlocks() {
    if (totalKvBlocks > 0) {
      return totalKvBlocks;
    }
    return freshLoadReport().map(r -> Math.max(0, r.kvTotalBlocks())).orElse(0L);
  }

  /** The KV blocks the worker reports in use; -1 without a fresh report. */
  long reportedActiveBlocks() {
    return freshLoadReport()
        .map(r -> r.kvUsedBlocks() >= 0 ? r.kvUsedBlocks() : r.activeDecodeBlocks())
        .orElse(-1L);
  }

  WorkerStatus status(Optional<WorkerStatus.KvView> kv) {
    Supplier<KvEventFeed> feed = kvEventFeed;
    TimedReport timed = loadReport;
    return new WorkerStatus(
        id(), endpoint.address(), healthy.get(), activeRequests.get(), kv,
        feed == null ? Optional.empty() : Optional.of(feed.get()),
        timed == null
            ? Optional.empty()
            : Optional.of(
                new WorkerStatus.ReportedLoad(
                    timed.report(), (System.nanoTime() - timed.nanos()) / 1_000_000)));
  }
}
