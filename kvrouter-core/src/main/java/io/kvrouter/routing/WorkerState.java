package io.kvrouter.routing;

import io.kvrouter.common.Ticker;
import io.kvrouter.protocol.KvEventFeed;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerLoadReport;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.WorkerStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;

/**
 * The router's live view of one worker: health, requests in flight, its own load reports; the
 * routing policy's candidate for it.
 */
final class WorkerState implements RouteCandidate {
  /** A load report older than this is not trusted: the worker, or its event plane, is gone. */
  static final long LOAD_REPORT_TTL_NANOS = 10_000_000_000L;

  final WorkerEndpoint endpoint;

  /** The KV blocks each rank declared it holds ({@code kv-blocks}); 0 when not declared. */
  private final long declaredKvBlocks;

  private final List<WorkerRank> ranks;

  /** In rotation or not, and its run of failures. */
  final WorkerHealth health;

  final AtomicInteger activeRequests = new AtomicInteger();

  /** Reads the time of load reports; the live router's is {@link Ticker#SYSTEM}. */
  private final Ticker ticker;

  /**
   * Set when the worker left the router's set: it is offered to no request and probed no more.
   * Requests already running there finish, or fail over, as on any worker.
   */
  private volatile boolean retired;

  WorkerState(RouteTarget target, Ticker ticker) {
    this.ticker = ticker;
    this.health = new WorkerHealth(ticker);
    this.endpoint = target.endpoint();
    this.declaredKvBlocks = target.totalKvBlocks();
    List<WorkerRank> all = new ArrayList<>(target.dpSize());
    for (int dp = 0; dp < target.dpSize(); dp++) {
      all.add(new WorkerRank(endpoint.workerId(), dp));
    }
    this.ranks = List.copyOf(all);
    this.loadReports = new AtomicReferenceArray<>(target.dpSize());
    this.kvEventFeeds = new AtomicReferenceArray<>(target.dpSize());
  }

  /** The worker left the router's set; for good (a worker that joins again is a new state). */
  void retire() {
    retired = true;
  }

  boolean retired() {
    return retired;
  }

  @Override
  public String workerId() {
    return endpoint.workerId();
  }

  @Override
  public List<WorkerRank> ranks() {
    return ranks;
  }

  /** How each rank's KV cache events are followed, once a subscriber follows them. */
  private final AtomicReferenceArray<Supplier<KvEventFeed>> kvEventFeeds;

  void reportKvEventFeed(int dpRank, Supplier<KvEventFeed> feed) {
    if (dpRank < 0 || dpRank >= kvEventFeeds.length()) {
      throw new IllegalArgumentException(
          "worker "
              + workerId()
              + " has no dp_rank "
              + dpRank
              + " (dp-size "
              + kvEventFeeds.length()
              + ")");
    }
    kvEventFeeds.set(dpRank, feed);
  }

  /** Each rank's latest load report and when it arrived (read together, written together). */
  private final AtomicReferenceArray<TimedReport> loadReports;

  private record TimedReport(WorkerLoadReport report, long nanos) {}

  /** Keeps {@code report}, whose rank must be one of {@link #ranks()}. */
  void reportLoad(WorkerLoadReport report) {
    loadReports.set(report.rank().dpRank(), new TimedReport(report, ticker.nanos()));
  }

  /**
   * The latest load report of rank {@code dpRank}, if younger than {@link #LOAD_REPORT_TTL_NANOS}.
   */
  Optional<WorkerLoadReport> freshLoadReport(int dpRank) {
    TimedReport timed = loadReports.get(dpRank);
    if (timed == null || ticker.nanos() - timed.nanos() > LOAD_REPORT_TTL_NANOS) {
      return Optional.empty();
    }
    return Optional.of(timed.report());
  }

  /** Rank {@code dpRank}'s declared KV capacity, else the one it reports, else 0 (unknown). */
  @Override
  public long totalKvBlocks(int dpRank) {
    if (declaredKvBlocks > 0) {
      return declaredKvBlocks;
    }
    return freshLoadReport(dpRank).map(r -> Math.max(0, r.kvTotalBlocks())).orElse(0L);
  }

  /** The KV blocks rank {@code dpRank} reports in use; -1 without a fresh report. */
  @Override
  public long reportedActiveBlocks(int dpRank) {
    return freshLoadReport(dpRank)
        .map(r -> r.kvUsedBlocks() >= 0 ? r.kvUsedBlocks() : r.activeDecodeBlocks())
        .orElse(-1L);
  }

  /** Its status; a worker of several ranks shows their event feeds and load reports combined. */
  WorkerStatus status(Optional<WorkerStatus.KvView> kv) {
    List<KvEventFeed> feeds = new ArrayList<>();
    List<WorkerLoadReport> reports = new ArrayList<>();
    long oldestNanos = Long.MAX_VALUE;
    for (int dp = 0; dp < ranks.size(); dp++) {
      Supplier<KvEventFeed> feed = kvEventFeeds.get(dp);
      if (feed != null) {
        feeds.add(feed.get());
      }
      TimedReport timed = loadReports.get(dp);
      if (timed != null) {
        reports.add(timed.report());
        oldestNanos = Math.min(oldestNanos, timed.nanos());
      }
    }
    return new WorkerStatus(
        workerId(),
        endpoint.address(),
        health.healthy(),
        activeRequests.get(),
        kv,
        feeds.isEmpty() ? Optional.empty() : Optional.of(KvEventFeed.combine(feeds)),
        reports.isEmpty()
            ? Optional.empty()
            : Optional.of(
                new WorkerStatus.ReportedLoad(
                    WorkerLoadReport.total(ranks.get(0), reports),
                    (ticker.nanos() - oldestNanos) / 1_000_000)));
  }
}
