package io.kvrouter.routing;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.WorkerCost;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.routing.index.ApproximateIndex;
import io.kvrouter.routing.index.KvIndexer;
import io.kvrouter.routing.schedule.Candidate;
import io.kvrouter.routing.schedule.KvSelector;
import io.kvrouter.routing.schedule.Selection;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The KV policies as a {@link RankPolicy}: the same {@link KvScheduling} as {@code --router-mode
 * kv}, over an index applied inline and a virtual clock. With KV events the index follows the
 * ranks' events; without ({@code approx}) it learns from its own decisions and forgets after the
 * TTL.
 */
final class KvRankPolicy implements RankPolicy {
  private final String name;
  private final KvScheduling scheduling;
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
    this.scheduling =
        new KvScheduling(
            KvIndexer.inline(),
            approximate ? ApproximateIndex.Settings.DEFAULTS : null,
            costs,
            nanoClock);
    this.candidates = ranks.stream().map(rank -> new Candidate(rank, kvBlocks)).toList();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public WorkerRank route(HashedPrompt prompt) {
    if (scheduling.learned != null) {
      scheduling.learned.expire();
    }
    Selection selection =
        scheduling.score(
            prompt.inputTokens(), prompt.localHashes(), prompt.sequenceHashes(), candidates);
    WorkerCost chosen =
        selection
            .chosenCost()
            .orElseThrow(() -> new IllegalStateException("no rank to route to: " + selection));
    scheduling.book(prompt.requestId(), chosen, prompt.localHashes(), prompt.sequenceHashes());
    return chosen.worker();
  }

  @Override
  public void prefillDone(String requestId) {
    scheduling.active.markPrefillDone(requestId);
  }

  @Override
  public void finished(String requestId) {
    scheduling.active.free(requestId);
  }

  @Override
  public void kvEvent(WorkerRank rank, KvCacheEvent event) {
    if (scheduling.learned == null) {
      scheduling.indexer.apply(rank, event);
    }
  }

  @Override
  public boolean followsKvEvents() {
    return scheduling.learned == null;
  }
}
