package io.kvrouter.protocol;

import java.util.Objects;
import java.util.Optional;

/**
 * What the router knows about one worker right now.
 *
 * @param id the worker id
 * @param address where its request plane listens, {@code host:port/path}
 * @param healthy whether it takes requests (false while health probes find it unreachable)
 * @param activeRequests requests sent to it and not yet ended
 * @param kv its KV view, summed over its data-parallel ranks; present in {@code --router-mode kv}
 *     and {@code approx}
 * @param kvEvents how its KV cache events are followed; present when the router follows them
 */
public record WorkerStatus(
    String id,
    String address,
    boolean healthy,
    int activeRequests,
    Optional<KvView> kv,
    Optional<KvEventFeed> kvEvents,
    Optional<ReportedLoad> reportedLoad) {

  public WorkerStatus {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(address, "address");
    Objects.requireNonNull(kv, "kv");
    Objects.requireNonNull(kvEvents, "kvEvents");
    Objects.requireNonNull(reportedLoad, "reportedLoad");
  }

  /** The worker's own latest load report, {@code ageMillis} old. */
  public record ReportedLoad(WorkerLoadReport report, long ageMillis) {
    public ReportedLoad {
      Objects.requireNonNull(report, "report");
    }
  }

  /**
   * A worker's KV load and cache as the KV router predicts them.
   *
   * @param activeBlocks distinct KV blocks of the requests routed to it and not finished
   * @param activePrefillTokens prompt tokens of those requests still to prefill
   * @param cachedBlocks blocks the router's index says it caches
   * @param totalKvBlocks the KV blocks it declared it can hold; 0 when unknown
   */
  public record KvView(
      long activeBlocks, long activePrefillTokens, long cachedBlocks, long totalKvBlocks) {}
}
