package io.kvrouter.routing;

import io.kvrouter.config.KvRouterConfig;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.AllWorkersBusyException;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.RouteExplanation;
import io.kvrouter.protocol.WorkerCost;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.WorkerStatus;
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.routing.index.ApproximateIndex;
import io.kvrouter.routing.index.KvIndexer;
import io.kvrouter.routing.schedule.ActiveSequences;
import io.kvrouter.routing.schedule.Candidate;
import io.kvrouter.routing.schedule.KvSelector;
import io.kvrouter.routing.schedule.ScheduleSettings;
import io.kvrouter.routing.schedule.Selection;
import io.kvrouter.routing.schedule.TtftModel;
import io.kvrouter.routing.schedule.WorkerLoad;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code --router-mode kv}: sends each request to the worker whose cost is lowest, weighing the
 * prompt blocks it already caches against the load it carries (see {@link KvSelector} for the
 * formula). For each request:
 *
 * <ol>
 *   <li>the prompt's complete blocks are hashed ({@link BlockHasher}: local hashes to match the
 *       index, chained sequence hashes to count active blocks);
 *   <li>the index gives each worker's overlap, the {@link ActiveSequences} its load;
 *   <li>the cheapest worker not over a busy threshold is chosen and the request is booked on it:
 *       its blocks and prompt tokens count as that worker's load until its first token (prefill
 *       done) and its end (freed);
 *   <li>with KV events, the index follows the workers' own events, delivered by event-plane
 *       subscribers through {@link #kvIndex}; without (approximate mode, {@code --no-kv-events}),
 *       the index learns that the chosen worker now holds the prompt's blocks ({@link
 *       ApproximateIndex}), which it forgets after {@code --router-ttl-secs}.
 * </ol>
 *
 * <p>Timers run off the event loops: one frees requests whose end was never seen (older than {@link
 * #MAX_REQUEST_AGE}) and, in approximate mode, one expires learned blocks.
 */
final class KvWorkerSelector implements WorkerSelector {
  /** How often requests whose end was lost are looked for. */
  static final Duration SWEEP_PERIOD = Duration.ofMinutes(1);

  /** A request booked longer ago than this is presumed ended and freed by the sweep. */
  static final Duration MAX_REQUEST_AGE = Duration.ofMinutes(10);

  /** Bucket bounds must be positive; the first catches requests that matched nothing. */
  private static final double[] OVERLAP_BUCKETS = {
    0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192
  };

  private static final double[] HIT_RATE_BUCKETS = {
    0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.99, 1
  };

  private final BlockHasher hasher;
  private final KvScheduling scheduling;
  private final DistributionSummary overlapBlocks;
  private final DistributionSummary hitRate;
  private final Vertx vertx;
  private final List<Long> timers = new ArrayList<>();

  private KvWorkerSelector(
      KvRouterConfig config, int blockSize, Vertx vertx, MeterRegistry meters) {
    this.hasher = BlockHasher.of(blockSize);
    ScheduleSettings settings =
        new ScheduleSettings(
            config.overlapScoreWeight(),
            config.temperature(),
            blockSize,
            config.activeDecodeBlocksThreshold(),
            config.activePrefillTokensThreshold());
    this.scheduling =
        new KvScheduling(
            KvIndexer.create(KvIndexer.DEFAULT_SHARDS, meters),
            config.kvEvents()
                ? null
                : new ApproximateIndex.Settings(
                    config.ttl(), config.maxTreeSize(), config.pruneTargetRatio()),
            KvScheduling.selector(
                config.cost(),
                settings,
                TtftModel.MOCKER,
                () -> ThreadLocalRandom.current().nextDouble()),
            System::nanoTime);
    this.vertx = vertx;
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

  /** A KV selector over {@code workers}, with its gauges registered and its timers running. */
  static KvWorkerSelector start(
      KvRouterConfig config,
      int blockSize,
      List<WorkerState> workers,
      Vertx vertx,
      MeterRegistry meters) {
    KvWorkerSelector selector = new KvWorkerSelector(config, blockSize, vertx, meters);
    workers.forEach(worker -> selector.registerGauges(worker, meters));
    ApproximateIndex learned = selector.scheduling.learned;
    if (learned != null) {
      selector.every(expiryPeriod(config.ttl()), learned::expire);
    }
    ActiveSequences active = selector.scheduling.active;
    selector.every(SWEEP_PERIOD, () -> active.sweep(MAX_REQUEST_AGE));
    return selector;
  }

  /** Expiry runs often enough to honour short TTLs and at most once a second. */
  static Duration expiryPeriod(Duration ttl) {
    long millis = Math.max(10, Math.min(1000, ttl.toMillis() / 10));
    return Duration.ofMillis(millis);
  }

  private void every(Duration period, Runnable work) {
    timers.add(
        vertx.setPeriodic(
            period.toMillis(),
            id ->
                vertx.executeBlocking(
                    () -> {
                      work.run();
                      return null;
                    },
                    false)));
  }

  private void registerGauges(WorkerState worker, MeterRegistry meters) {
    for (WorkerRank rank : worker.ranks) {
      String[] tags = {
        MetricNames.TAG_WORKER_ID, worker.id(),
        MetricNames.TAG_DP_RANK, String.valueOf(rank.dpRank()),
        MetricNames.TAG_WORKER_TYPE, "decode"
      };
      Gauge.builder(
              MetricNames.WORKER_ACTIVE_DECODE_BLOCKS,
              () -> scheduling.active.load(rank).activeBlocks())
          .description("Active KV blocks the KV router predicts per worker")
          .tags(tags)
          .register(meters);
      Gauge.builder(
              MetricNames.WORKER_ACTIVE_PREFILL_TOKENS,
              () -> scheduling.active.load(rank).activePrefillTokens())
          .description("Prompt tokens still to prefill the KV router predicts per worker")
          .tags(tags)
          .register(meters);
    }
  }

  /** A prompt's block hashes and the cost of each candidate for it. */
  private record Scored(long[] localHashes, long[] sequenceHashes, Selection selection) {}

  private Scored score(PreprocessedRequest request, List<WorkerState> candidates) {
    int[] tokens = request.tokenIds();
    long[] local = hasher.localHashes(tokens);
    long[] sequence = BlockHasher.chain(local);
    // every data-parallel rank is a candidate of its own: each has its own KV cache
    List<Candidate> ranks = new ArrayList<>(candidates.size());
    for (WorkerState worker : candidates) {
      for (WorkerRank rank : worker.ranks) {
        int dp = rank.dpRank();
        ranks.add(
            new Candidate(
                rank, worker.effectiveTotalKvBlocks(dp), worker.reportedActiveBlocks(dp)));
      }
    }
    return new Scored(local, sequence, scheduling.score(tokens.length, local, sequence, ranks));
  }

  @Override
  public Route select(String requestId, PreprocessedRequest request, List<WorkerState> candidates) {
    Scored scored = score(request, candidates);
    Optional<WorkerCost> chosen = scored.selection().chosenCost();
    if (chosen.isEmpty()) {
      throw new AllWorkersBusyException(
          "All " + candidates.size() + " available workers are busy; retry later");
    }
    WorkerCost cost = chosen.get();
    WorkerRank rank = cost.worker();
    WorkerState worker =
        candidates.stream().filter(w -> w.id().equals(rank.workerId())).findFirst().orElseThrow();
    scheduling.book(requestId, cost, scored.localHashes(), scored.sequenceHashes());
    int inputTokens = request.tokenIds().length;
    overlapBlocks.record(cost.overlapBlocks());
    hitRate.record(
        inputTokens == 0 ? 0 : (double) cost.overlapBlocks() * hasher.blockSize() / inputTokens);
    return new Route(
        worker, new ActiveBooking(requestId), worker.ranks.size() > 1 ? rank.dpRank() : null);
  }

  /** Keeps the request's load on its worker from routing to first token (prefill) and end. */
  private final class ActiveBooking implements Booking {
    private final String requestId;

    ActiveBooking(String requestId) {
      this.requestId = requestId;
    }

    @Override
    public void firstOutput() {
      scheduling.active.markPrefillDone(requestId);
    }

    @Override
    public void release() {
      scheduling.active.free(requestId);
    }
  }

  @Override
  public Optional<RouteExplanation> explain(
      PreprocessedRequest request, List<WorkerState> candidates) {
    Selection selection = score(request, candidates).selection();
    return Optional.of(
        new RouteExplanation(
            selection.inputTokens(),
            hasher.blockSize(),
            selection.requestBlocks(),
            selection.chosen(),
            selection.workers()));
  }

  @Override
  public Optional<WorkerStatus.KvView> kvView(WorkerState worker) {
    // summed over the worker's data-parallel ranks
    long activeBlocks = 0;
    long prefillTokens = 0;
    long cachedBlocks = 0;
    long totalBlocks = 0;
    Map<WorkerRank, Long> cached = scheduling.indexer.cachedBlocks();
    for (WorkerRank rank : worker.ranks) {
      WorkerLoad load = scheduling.active.load(rank);
      activeBlocks += load.activeBlocks();
      prefillTokens += load.activePrefillTokens();
      cachedBlocks += cached.getOrDefault(rank, 0L);
      totalBlocks += worker.effectiveTotalKvBlocks(rank.dpRank());
    }
    return Optional.of(
        new WorkerStatus.KvView(activeBlocks, prefillTokens, cachedBlocks, totalBlocks));
  }

  /**
   * In approximate mode the worker's learned blocks are forgotten. With KV events the index keeps
   * following the worker's event stream, which says itself when the worker restarted; removing the
   * blocks here would make the index disagree with that stream.
   */
  @Override
  public void workerLost(WorkerState worker) {
    if (scheduling.learned != null) {
      scheduling.learned.forgetWorker(worker.id());
      scheduling.indexer.removeWorker(worker.id());
    }
  }

  @Override
  public Optional<KvIndexer> kvIndex() {
    return Optional.of(scheduling.indexer);
  }

  @Override
  public boolean followsKvEvents() {
    return scheduling.learned == null;
  }

  @Override
  public String mode() {
    return "kv";
  }

  @Override
  public void close() {
    timers.forEach(vertx::cancelTimer);
    scheduling.indexer.close();
  }
}
