package io.kvrouter.routing.schedule;

import static io.kvrouter.routing.schedule.Fixtures.W1;
import static io.kvrouter.routing.schedule.Fixtures.W2;
import static io.kvrouter.routing.schedule.Fixtures.blocks;
import static io.kvrouter.routing.schedule.Fixtures.overlaps;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.kvrouter.protocol.WorkerCost;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The predicted-TTFT cost: its formula, and the choices it makes that Dynamo's cost does not. */
class PredictedTtftTest {
  private static final int BS = 512;

  /** A linear model, easy to work out by hand: 1 ms per token, 10 ms per decode pass. */
  private static final TtftModel LINEAR = new TtftModel(0, 1, 0, 0, 0, 10, 1000);

  @Test
  void theCostIsTheRequestsOwnTtftPlusTheDelayItsUncachedTokensImposeOnOthers() {
    // 2,500 tokens to compute: chunks of 1,000, 1,000, 500 -> 2,500 ms + 3 decode passes of 10 ms
    assertThat(LINEAR.costMillis(2500, 0, 0)).isEqualTo(2530.0);
    // of which 700 are the request's own: + 3 x 700
    assertThat(LINEAR.costMillis(2500, 700, 0)).isEqualTo(2530.0 + TtftModel.DELAY_WEIGHT * 700);
    // nothing to compute still takes a step
    assertThat(LINEAR.costMillis(0, 0, 0)).isEqualTo(10.0);
  }

  @Test
  void theMockerModelMatchesTheSimulatedEnginesPolynomials() {
    // one 8,192-token chunk: 4.209989e-7 * 8192^2 + 1.518344e-2 * 8192 + 16.50142, and decode at
    // half usage: -25.74 / 4 + 54.01 / 2 + 5.74
    double prefill = 4.209989e-7 * 8192 * 8192 + 1.518344e-2 * 8192 + 16.50142;
    double decode = -25.74 * 0.25 + 54.01 * 0.5 + 5.74;
    assertThat(TtftModel.MOCKER.costMillis(8192, 0, 0.5)).isCloseTo(prefill + decode, within(1e-9));
  }

  /**
   * W1 caches 7 of the prompt's 8 blocks but has 2,000 tokens queued; W2 is idle and caches
   * nothing. Dynamo's cost counts blocks: W1 costs (2000 + 512) / 512 + 8 = 12.9, W2 4096 / 512 + 8
   * = 16, so W1. The predicted TTFT agrees while W1's queue is short, and, unlike Dynamo's cost,
   * turns to W2 once W1's queue takes longer than W2 needs to compute the whole prompt and the
   * delay that recomputation imposes.
   */
  @Test
  void aCachedRankIsWorthItsQueueOnlyWhileTheQueueIsShorterThanTheRecomputation() {
    ScheduleRequest request = new ScheduleRequest(8 * BS, blocks(1, 8));
    List<Candidate> candidates = List.of(new Candidate(W1, 10_000), new Candidate(W2, 10_000));
    KvSelector ttft = KvSelector.predictedTtft(ScheduleSettings.defaults(BS), LINEAR, () -> 0.5);

    ActiveSequences shortQueue = ActiveSequences.create(() -> 0L);
    shortQueue.add("queued", W1, blocks(100, 1), 2000);
    assertThat(chosen(ttft, request, candidates, shortQueue)).isEqualTo(W1.workerId());

    // W2: 4,096 + 5 passes (50) + 3 x 4,096 = 16,434 ms; W1 with 20,000 queued: 20,512 + 21
    // passes (210) + 3 x 512 = 22,258 ms
    ActiveSequences longQueue = ActiveSequences.create(() -> 0L);
    longQueue.add("queued", W1, blocks(100, 1), 20_000);
    assertThat(chosen(ttft, request, candidates, longQueue)).isEqualTo(W2.workerId());
    KvSelector dynamo = KvSelector.create(ScheduleSettings.defaults(BS), () -> 0.5);
    assertThat(chosen(dynamo, request, candidates, shortQueue)).isEqualTo(W1.workerId());
  }

  private static String chosen(
      KvSelector selector,
      ScheduleRequest request,
      List<Candidate> candidates,
      ActiveSequences active) {
    return selector
        .select(request, overlaps(W1, 7, 7L, W2, 0, 0L), candidates, active)
        .chosenCost()
        .map(WorkerCost::worker)
        .orElseThrow()
        .workerId();
  }
}
