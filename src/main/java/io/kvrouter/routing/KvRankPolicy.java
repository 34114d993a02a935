package io.kvrouter.routing;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.OverlapScores;
import io.kvrouter.protocol.WorkerCost;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.routing.index.ApproximateIndex;
import io.kvrouter.routing.index.KvIndexer;
import io.kvrouter.routing.schedule.ActiveSequences;
import io.kvrouter.routing.schedule.Candidate;
import io.kvrouter.routing.schedule.KvSelector;
import io.kvrouter.routing.schedule.ScheduleRequest;
import io.kvrouter.routing.schedule.Selection;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The KV policies as a {@link RankPolicy}: the same index ({@link KvIndexer}, applied inline),
 * cost function ({@link KvSelector}) and active-sequence books ({@link ActiveSequences}) as {@code
 * --router-mode kv}, on a virtual clock. With KV events the index follows the ranks' events; without
 * ({@code approx}) it learns from its own decisions and forgets after the TTL ({@link
 * ApproximateIndex}).
 */
final class KvRankPolicy implements RankPolicy {
  private final String name;
  private final KvIndexer indexer = KvIndexer.inline();
  private final ApproximateIndex learned;
  private final KvSelector costs;
  private final ActiveSequences active;
  private final List<Candidate> candidates;

  /**
   * @param approximate learn from decisions instead of following KV events
   * @param kvBlocks each rank's KV capacity in blocks, for the busy filters
   * @param nanoClock the virtual clock, for the approximate index's TTL
   */
  KvRankPolicy(
      String name,
      KvSelector costs,
      boolean approximate,
      List<WorkerRank> ranks,
      long kvBlocks,
      LongSupplier nanoClock) {
    this.name = name;
    this.costs = costs;
    this.learned =
        approximate
            ? new ApproximateIndex(indexer, ApproximateIndex.Settings.DEFAULTS, nanoClock)
            : null;
    this.active = ActiveSequences.create(nanoClock);
    this.candidates = ranks.stream().map(rank -> new Candidate(rank, kvBlocks)).toList();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public WorkerRank route(HashedPrompt prompt) {
    if (learned != null) {
      learned.expire();
    }
    OverlapScores overlaps =
        new OverlapScores(
            indexer.findMatches(prompt.localHashes()).overlapBlocks(), indexer.cachedBlocks());
    Selection selection =
        costs.select(
            new ScheduleRequest(prompt.inputTokens(), prompt.sequenceHashes()),
            overlaps,
            candidates,
            active);
    WorkerCost chosen =
        selection
            .chosenCost()
            .orElseThrow(() -> new IllegalStateException("no rank to route to: " + selection));
    WorkerRank rank = chosen.worker();
    active.add(prompt.requestId(), rank, prompt.sequenceHashes(), chosen.newPrefillTokens());
    if (learned != null) {
      learned.routed(rank, prompt.localHashes(), prompt.sequenceHashes());
    }
    return rank;
  }

  @Override
  public void prefillDone(String requestId) {
    active.markPrefillDone(requestId);
  }

  @Override
  public void finished(String requestId) {
    active.free(requestId);
  }

  @Override
  public void kvEvent(WorkerRank rank, KvCacheEvent event) {
    if (learned == null) {
      indexer.apply(rank, event);
    }
  }

  @Override
  public boolean followsKvEvents() {
    return learned == null;
  }
}
