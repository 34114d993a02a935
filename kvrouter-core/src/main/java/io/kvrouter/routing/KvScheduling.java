package io.kvrouter.routing;

import io.kvrouter.config.KvCost;
import io.kvrouter.protocol.OverlapScores;
import io.kvrouter.protocol.WorkerCost;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.routing.index.ApproximateIndex;
import io.kvrouter.routing.index.KvIndexer;
import io.kvrouter.routing.schedule.ActiveSequences;
import io.kvrouter.routing.schedule.Candidate;
import io.kvrouter.routing.schedule.KvSelector;
import io.kvrouter.routing.schedule.ScheduleRequest;
import io.kvrouter.routing.schedule.ScheduleSettings;
import io.kvrouter.routing.schedule.Selection;
import io.kvrouter.routing.schedule.TtftModel;
import java.util.List;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * The KV router's decision, shared by {@code --router-mode kv} and the simulator's KV policies: the
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
   * @param nanoClock the clock of the TTL and of the books' request ages
   */
  KvScheduling(
      KvIndexer indexer,
      ApproximateIndex.Settings approximate,
      KvSelector costs,
      LongSupplier nanoClock) {
    this.indexer = indexer;
    this.learned =
        approximate == null
            ? null
            : new ApproximateIndex(indexer, approximate, nanoClock::getAsLong);
    this.costs = costs;
    this.active = ActiveSequences.create(nanoClock::getAsLong);
  }

  /** The cost function {@code cost} names, over {@code settings}. */
  static KvSelector selector(
      KvCost cost, ScheduleSettings settings, TtftModel model, DoubleSupplier uniform) {
    return cost == KvCost.PREDICTED_TTFT
        ? KvSelector.predictedTtft(settings, model, uniform)
        : KvSelector.create(settings, uniform);
  }

  /** Costs every candidate for a prompt of {@code inputTokens} tokens with these block hashes. */
  Selection score(
      int inputTokens, long[] localHashes, long[] sequenceHashes, List<Candidate> candidates) {
    // Ties go to the rank caching the fewest blocks; counting every rank's blocks, not only
    // those of the ranks that matched this prompt, spreads unrelated prompts over idle workers.
    OverlapScores overlaps =
        new OverlapScores(indexer.findMatches(localHashes).overlapBlocks(), indexer.cachedBlocks());
    return costs.select(
        new ScheduleRequest(inputTokens, sequenceHashes), overlaps, candidates, active);
  }

  /** Books {@code requestId} on the rank {@code chosen} names, and teaches the learned index. */
  void book(String requestId, WorkerCost chosen, long[] localHashes, long[] sequenceHashes) {
    WorkerRank rank = chosen.worker();
    active.add(requestId, rank, sequenceHashes, chosen.newPrefillTokens());
    if (learned != null) {
      learned.routed(rank, localHashes, sequenceHashes);
    }
  }
}
