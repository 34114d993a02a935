package io.kvrouter.routing;

import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.WorkerCost;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.routing.schedule.LoadView;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The live KV policy's meters: per routed request the prompt blocks the chosen rank caches and its
 * hit rate, and per rank Dynamo's gauges of the load the router predicts there.
 */
final class KvMeters implements KvPolicy.Decisions {
  /** Bucket bounds must be positive; the first catches requests that matched nothing. */
  private static final double[] OVERLAP_BUCKETS = {
    0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192
  };

  private static final double[] HIT_RATE_BUCKETS = {
    0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.99, 1
  };

  private final MeterRegistry meters;
  private final int blockSize;
  private final LoadView loads;
  private final DistributionSummary overlapBlocks;
  private final DistributionSummary hitRate;

  /** Each rank's gauges, from its worker's joining to its leaving. */
  private final Map<WorkerRank, List<Gauge>> gauges = new ConcurrentHashMap<>();

  /**
   * Registers the meters; each rank's pair of gauges, reading {@code loads}, comes when its worker
   * joins.
   */
  KvMeters(MeterRegistry meters, int blockSize, LoadView loads) {
    this.meters = meters;
    this.blockSize = blockSize;
    this.loads = loads;
    this.overlapBlocks =
        DistributionSummary.builder(MetricNames.ROUTER_OVERLAP_BLOCKS)
            .description("Prompt blocks the chosen worker already caches, per routed request")
            .serviceLevelObjectives(OVERLAP_BUCKETS)
            .register(meters);
    this.hitRate =
        DistributionSummary.builder(MetricNames.ROUTER_KV_HIT_RATE)
            .description("Prompt tokens the chosen worker already caches over prompt tokens")
            .serviceLevelObjectives(HIT_RATE_BUCKETS)
            .register(meters);
  }

  @Override
  public void joined(List<WorkerRank> ranks) {
    for (WorkerRank rank : ranks) {
      String[] tags = {
        MetricNames.TAG_WORKER_ID, rank.workerId(),
        MetricNames.TAG_DP_RANK, String.valueOf(rank.dpRank()),
        MetricNames.TAG_WORKER_TYPE, "decode"
      };
      gauges.put(
          rank,
          List.of(
              Gauge.builder(
                      MetricNames.WORKER_ACTIVE_DECODE_BLOCKS,
                      () -> loads.load(rank).activeBlocks())
                  .description("Active KV blocks the KV router predicts per worker")
                  .tags(tags)
                  .register(meters),
              Gauge.builder(
                      MetricNames.WORKER_ACTIVE_PREFILL_TOKENS,
                      () -> loads.load(rank).activePrefillTokens())
                  .description("Prompt tokens still to prefill the KV router predicts per worker")
                  .tags(tags)
                  .register(meters)));
    }
  }

  @Override
  public void left(List<WorkerRank> ranks) {
    for (WorkerRank rank : ranks) {
      List<Gauge> gone = gauges.remove(rank);
      if (gone != null) {
        gone.forEach(meters::remove);
      }
    }
  }

  @Override
  public void chosen(WorkerCost cost, int inputTokens) {
    overlapBlocks.record(cost.overlapBlocks());
    hitRate.record(inputTokens == 0 ? 0 : (double) cost.overlapBlocks() * blockSize / inputTokens);
  }
}
