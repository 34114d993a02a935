package io.kvrouter.routing.schedule;

import io.kvrouter.protocol.OverlapScores;
import io.kvrouter.protocol.WorkerCost;
import io.kvrouter.protocol.WorkerRank;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.DoubleSupplier;

/**
 * Dynamo's KV cost (the E2 scheduler, {@code lib/llm/src/kv_router/scheduler.rs}). For a request of
 * {@code isl} prompt tokens and block hashes {@code R}, with block size {@code bs}, each candidate
 * rank {@code w} with overlap {@code ov_w} (consecutive prompt blocks it caches from block 0) costs
 *
 * <pre>
 *   prefill_tokens_w = active_prefill_tokens_w + max(0, isl - ov_w * bs)
 *   prefill_blocks_w = prefill_tokens_w / bs                      (real division)
 *   decode_blocks_w  = |active_blocks_w ∪ R|                      (active blocks + blocks of R not active on w)
 *   cost_w           = overlap_score_weight * prefill_blocks_w + decode_blocks_w
 * </pre>
 *
 * and the lowest cost wins. A rank with nothing active has zero active load. Ranks a busy filter
 * excludes ({@link BusyFilter}) are costed, reported, and never chosen.
 *
 * <p>At temperature 0 the cheapest rank wins; among equal costs the rank caching the fewest blocks
 * in all ({@code OverlapScores.cachedBlocks}, 0 when absent) wins, and among those the first in
 * candidate order (Dynamo then falls back to hash-map order; candidate order makes it
 * reproducible). At temperature {@code T > 0} the rank is sampled with {@code p_w ∝ exp(-(cost_w -
 * min) / ((max - min) * T))} over the non-busy ranks ({@link Softmax}).
 */
final class CostSelector implements KvSelector {

  /** A candidate's cost from its predicted load with the request on it. */
  interface Formula {
    double cost(long newPrefillTokens, long prefillTokens, long decodeBlocks, long totalKvBlocks);
  }

  private final ScheduleSettings settings;
  private final Formula formula;
  private final DoubleSupplier uniform;
  private final BusyFilter busyFilter;

  /** Dynamo's cost: {@code overlap_score_weight · prefill_blocks + decode_blocks}. */
  CostSelector(ScheduleSettings settings, DoubleSupplier uniform) {
    this(
        settings,
        (newPrefillTokens, prefillTokens, decodeBlocks, totalKvBlocks) ->
            settings.overlapScoreWeight() * ((double) prefillTokens / settings.blockSize())
                + decodeBlocks,
        uniform);
  }

  /** Another cost over the same predicted loads, with the same selection and busy filters. */
  CostSelector(ScheduleSettings settings, Formula formula, DoubleSupplier uniform) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.formula = Objects.requireNonNull(formula, "formula");
    this.uniform = Objects.requireNonNull(uniform, "uniform");
    this.busyFilter =
        new BusyFilter(
            settings.activeDecodeBlocksThreshold(), settings.activePrefillTokensThreshold());
  }

  @Override
  public ScheduleSettings settings() {
    return settings;
  }

  @Override
  public Selection select(
      ScheduleRequest request, OverlapScores overlaps, List<Candidate> candidates, LoadView loads) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(overlaps, "overlaps");
    Objects.requireNonNull(candidates, "candidates");
    Objects.requireNonNull(loads, "loads");
    List<WorkerCost> costs = new ArrayList<>(candidates.size());
    Set<WorkerRank> seen = new HashSet<>();
    for (Candidate candidate : candidates) {
      if (seen.add(candidate.worker())) {
        costs.add(cost(request, overlaps, candidate, loads));
      }
    }
    Selection.Outcome outcome;
    Optional<WorkerRank> chosen = Optional.empty();
    if (costs.isEmpty()) {
      outcome = Selection.Outcome.NO_WORKERS;
    } else {
      List<WorkerCost> eligible = costs.stream().filter(cost -> !cost.busy()).toList();
      if (eligible.isEmpty()) {
        outcome = Selection.Outcome.ALL_BUSY;
      } else {
        outcome = Selection.Outcome.CHOSEN;
        chosen = Optional.of(pick(eligible).worker());
      }
    }
    return new Selection(outcome, chosen, request.inputTokens(), request.blockCount(), costs);
  }

  private WorkerCost cost(
      ScheduleRequest request, OverlapScores overlaps, Candidate candidate, LoadView loads) {
    WorkerRank worker = candidate.worker();
    int blockSize = settings.blockSize();
    int overlap = overlaps.overlap(worker);
    Long cached = overlaps.cachedBlocks().get(worker);
    WorkerLoad load = loads.load(worker, request.hashes());
    long newPrefillTokens = request.newPrefillTokens(overlap, blockSize);
    long prefillTokens = load.activePrefillTokens() + newPrefillTokens;
    long decodeBlocks = load.activeBlocks() + load.newBlocks();
    double cost =
        formula.cost(newPrefillTokens, prefillTokens, decodeBlocks, candidate.totalKvBlocks());
    return new WorkerCost(
        worker,
        overlap,
        cached == null ? 0 : cached,
        newPrefillTokens,
        prefillTokens,
        decodeBlocks,
        cost,
        busyFilter.isBusy(load, candidate));
  }

  private WorkerCost pick(List<WorkerCost> eligible) {
    if (settings.temperature() > 0) {
      double[] values = new double[eligible.size()];
      for (int i = 0; i < values.length; i++) {
        values[i] = eligible.get(i).cost();
      }
      return eligible.get(Softmax.sample(values, settings.temperature(), uniform));
    }
    WorkerCost best = eligible.get(0);
    for (int i = 1; i < eligible.size(); i++) {
      WorkerCost next = eligible.get(i);
      if (next.cost() < best.cost()
          || (next.cost() == best.cost() && next.cachedBlocks() < best.cachedBlocks())) {
        best = next;
      }
    }
    return best;
  }
}
