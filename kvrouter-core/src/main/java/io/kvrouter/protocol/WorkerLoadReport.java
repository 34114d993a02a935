package io.kvrouter.protocol;

import java.util.List;
import java.util.Objects;
import java.util.function.ToLongFunction;

/**
 * The load a worker rank reports about itself on the event plane (Dynamo's {@code ActiveLoad} /
 * {@code ForwardPassMetrics}). Each count is -1 when the report did not carry it.
 *
 * @param activeDecodeBlocks KV blocks held by running requests
 * @param activePrefillTokens prompt tokens still to prefill
 * @param kvUsedBlocks KV blocks in use (active and cached-but-referenced), the worker's own count
 * @param kvTotalBlocks the rank's KV capacity in blocks
 * @param requestsWaiting requests queued, not yet scheduled
 * @param requestsRunning requests being generated
 */
public record WorkerLoadReport(
    WorkerRank rank,
    long activeDecodeBlocks,
    long activePrefillTokens,
    long kvUsedBlocks,
    long kvTotalBlocks,
    long requestsWaiting,
    long requestsRunning) {

  /** Stands for a count the report did not carry. */
  public static final long UNKNOWN = -1;

  public WorkerLoadReport {
    Objects.requireNonNull(rank, "rank");
    for (long count :
        new long[] {
          activeDecodeBlocks,
          activePrefillTokens,
          kvUsedBlocks,
          kvTotalBlocks,
          requestsWaiting,
          requestsRunning
        }) {
      if (count < UNKNOWN) {
        throw new IllegalArgumentException("a load count must be >= 0 or UNKNOWN: " + count);
      }
    }
  }

  /**
   * The reports of one worker's ranks added up, as {@code rank}'s: each count is the sum, or {@link
   * #UNKNOWN} when a report lacks it.
   */
  public static WorkerLoadReport total(WorkerRank rank, List<WorkerLoadReport> reports) {
    if (reports.size() == 1) {
      return reports.get(0);
    }
    return new WorkerLoadReport(
        rank,
        sum(reports, WorkerLoadReport::activeDecodeBlocks),
        sum(reports, WorkerLoadReport::activePrefillTokens),
        sum(reports, WorkerLoadReport::kvUsedBlocks),
        sum(reports, WorkerLoadReport::kvTotalBlocks),
        sum(reports, WorkerLoadReport::requestsWaiting),
        sum(reports, WorkerLoadReport::requestsRunning));
  }

  private static long sum(List<WorkerLoadReport> reports, ToLongFunction<WorkerLoadReport> count) {
    long total = 0;
    for (WorkerLoadReport report : reports) {
      long c = count.applyAsLong(report);
      if (c == UNKNOWN) {
        return UNKNOWN;
      }
      total += c;
    }
    return total;
  }
}
