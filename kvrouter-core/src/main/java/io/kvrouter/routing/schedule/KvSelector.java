package io.kvrouter.routing.schedule;

import io.kvrouter.protocol.OverlapScores;
import io.kvrouter.protocol.WorkerCost;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Chooses the worker rank for a request by Dynamo's KV cost. For a request of {@code isl} prompt
 * tokens and block hashes {@code R}, block size {@code bs}, each candidate rank {@code w} that
 * caches {@code ov_w} consecutive prompt blocks from block 0 costs
 *
 * <pre>
 *   prefill_tokens_w = active_prefill_tokens_w + max(0, isl - ov_w * bs)
 *   decode_blocks_w  = |active_blocks_w ∪ R|
 *   cost_w           = overlap_score_weight * prefill_tokens_w / bs + decode_blocks_w
 * </pre>
 *
 * <p>Lowest cost wins at temperature 0 (ties: fewest cached blocks, then candidate order); at
 * temperature {@code T > 0} a rank is sampled with {@code p_w ∝ exp(-(cost_w - min) / ((max - min)
 * * T))}. Busy ranks are costed but never chosen. The values are reported per rank as {@link
 * WorkerCost}.
 *
 * <p>Selecting has no side effects: it books nothing, so it serves {@code /router/explain} as well
 * as routing; the caller books the chosen rank with {@link ActiveSequences#add}.
 */
public interface KvSelector {

  /** A selector with {@code settings}, drawing softmax samples from {@link ThreadLocalRandom}. */
  static KvSelector create(ScheduleSettings settings) {
    return create(settings, () -> ThreadLocalRandom.current().nextDouble());
  }

  /**
   * A selector with {@code settings}, drawing softmax samples from {@code uniform}, which returns
   * numbers in {@code [0, 1)} and must be safe for the threads that call {@link #select}.
   */
  static KvSelector create(ScheduleSettings settings, DoubleSupplier uniform) {
    return new CostSelector(settings, uniform);
  }

  /**
   * A selector whose cost is time, as {@link TtftModel#costMillis} predicts it: the request's own
   * time to first token on a rank (the prompt tokens queued ahead of it there and its own uncached
   * ones, at the model's speed, each step slowed by the rank's KV usage {@code decode_blocks /
   * total KV blocks}), plus the delay its uncached tokens impose on the requests that will queue
   * behind it. Selection, ties and busy filters are as for Dynamo's cost; {@code
   * overlap_score_weight} is not used.
   */
  static KvSelector predictedTtft(
      ScheduleSettings settings, TtftModel model, DoubleSupplier uniform) {
    return new CostSelector(
        settings,
        (newPrefillTokens, prefillTokens, decodeBlocks, totalKvBlocks) ->
            model.costMillis(
                prefillTokens,
                newPrefillTokens,
                totalKvBlocks == 0 ? 0 : (double) decodeBlocks / totalKvBlocks),
        uniform);
  }

  ScheduleSettings settings();

  /**
   * Costs every candidate for {@code request} and chooses among those not busy.
   *
   * @param overlaps per rank, the prompt blocks it caches from block 0 and its cached-block count
   * @param candidates the ranks to consider; a rank given twice counts once
   * @param loads the ranks' predicted load, usually the {@link ActiveSequences}
   */
  Selection select(
      ScheduleRequest request, OverlapScores overlaps, List<Candidate> candidates, LoadView loads);
}
