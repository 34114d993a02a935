package io.kvrouter.routing;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.KvCost;
import io.kvrouter.config.KvRouterConfig;
import io.kvrouter.protocol.OverlapScores;
import io.kvrouter.protocol.WorkerCost;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.routing.index.ApproximateIndex;
import io.kvrouter.routing.index.KvIndexer;
import io.kvrouter.routing.schedule.ActiveSequences;
import io.kvrouter.routing.schedule.Candidate;
import io.kvrouter.routing.schedule.KvSelector;
import io.kvrouter.routing.schedule.ReplicatedActiveSequences;
import io.kvrouter.routing.schedule.ScheduleRequest;
import io.kvrouter.routing.schedule.ScheduleSettings;
import io.kvrouter.routing.schedule.Selection;
import io.kvrouter.routing.schedule.TtftModel;
import java.util.List;
import java.util.function.DoubleSupplier;

/**
 * The KV router's decision, behind {@link KvPolicy} in the live router and the simulator alike: the
 * index of what each rank caches (fed by KV events, or, in approximate mode, by {@link #book}
 * through an {@link ApproximateIndex}), the cost function, and the books of requests in flight.
 * Scoring books nothing; {@link #book} records the chosen rank.
 */
final class KvScheduling {
  final KvIndexer indexer;

  /** Feeds the index from decisions in approximate mode; null when KV events feed it. */
  final ApproximateIndex learned;

  final KvSelector costs;
  final ActiveSequences active;

  /**
   * @param approximate learn from decisions (with {@code ttl}) instead of following KV events; null
   *     follows events
   * @param ticker the clock of the TTL and of the books' request ages
   * @param sync shares the books with the other routers of a fleet; null keeps them local
   */
  private KvScheduling(
      KvIndexer indexer,
      ApproximateIndex.Settings approximate,
      KvSelector costs,
      Ticker ticker,
      ReplicaSync sync) {
    this.indexer = indexer;
    this.learned = approximate == null ? null : new ApproximateIndex(indexer, approximate, ticker);
    this.costs = costs;
    ActiveSequences local = ActiveSequences.create(ticker);
    if (sync == null) {
      this.active = local;
    } else {
      ReplicatedActiveSequences shared =
          new ReplicatedActiveSequences(local, sync.routerId(), sync::publish, ticker);
      sync.start(shared::apply);
      this.active = shared;
    }
  }

  /**
   * The scheduling {@code settings} describe, over {@code indexer}.
   *
   * @param approximate learn from decisions (with the TTL and sizes of {@code settings.kv()})
   *     instead of following KV events
   * @param sync shares the books with the other routers of a fleet; null keeps them local
   */
  static KvScheduling of(
      PolicySettings settings, KvIndexer indexer, boolean approximate, ReplicaSync sync) {
    KvRouterConfig kv = settings.kv();
    ScheduleSettings schedule =
        new ScheduleSettings(
            kv.overlapScoreWeight(),
            kv.temperature(),
            settings.blockSize(),
            kv.activeDecodeBlocksThreshold(),
            kv.activePrefillTokensThreshold());
    DoubleSupplier uniform = settings.random()::nextDouble;
    KvSelector costs =
        kv.cost() == KvCost.PREDICTED_TTFT
            ? KvSelector.predictedTtft(
                schedule, TtftModel.MOCKER.withChunkTokens(settings.prefillChunkTokens()), uniform)
            : KvSelector.create(schedule, uniform);
    return new KvScheduling(
        indexer,
        approximate
            ? new ApproximateIndex.Settings(kv.ttl(), kv.maxTreeSize(), kv.pruneTargetRatio())
            : null,
        costs,
        settings.ticker(),
        sync);
  }

  /** Costs every candidate rank for {@code prompt}. */
  Selection score(Prompt prompt, List<Candidate> candidates) {
    // Ties go to the rank caching the fewest blocks; counting every rank's blocks, not only
    // those of the ranks that matched this prompt, spreads unrelated prompts over idle workers.
    OverlapScores overlaps =
        new OverlapScores(
            indexer.findMatches(prompt.localHashes()).overlapBlocks(), indexer.cachedBlocks());
    return costs.select(
        new ScheduleRequest(prompt.inputTokens(), prompt.sequenceHashes()),
        overlaps,
        candidates,
        active);
  }

  /** Books {@code requestId} on the rank {@code chosen} names, and teaches the learned index. */
  void book(String requestId, WorkerCost chosen, Prompt prompt) {
    WorkerRank rank = chosen.worker();
    active.add(requestId, rank, prompt.sequenceHashes(), chosen.newPrefillTokens());
    if (learned != null) {
      learned.routed(rank, prompt.localHashes(), prompt.sequenceHashes());
    }
  }
}
