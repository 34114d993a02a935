package io.kvrouter.routing.schedule;

import static io.kvrouter.routing.schedule.Fixtures.W1;
import static io.kvrouter.routing.schedule.Fixtures.W2;
import static io.kvrouter.routing.schedule.Fixtures.W3;
import static io.kvrouter.routing.schedule.Fixtures.blocks;
import static io.kvrouter.routing.schedule.Fixtures.overlaps;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.OverlapScores;
import io.kvrouter.protocol.WorkerCost;
import io.kvrouter.protocol.WorkerRank;
import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The busy filters: who is busy, that busy ranks are never chosen, and all-busy. */
class BusyFilterTest {

  private static final int BS = 4;
  private static final ScheduleRequest REQUEST = new ScheduleRequest(20, blocks(1, 5));

  private ActiveSequences active;

  @BeforeEach
  void setUp() {
    active = ActiveSequences.create(() -> 0L);
  }

  @Test
  void decodeBlocks_busyOnlyAboveTheFractionOfCapacity() {
    // Threshold 0.5 of 10 blocks: 6 active is busy, exactly 5 is not.
    active.add("a", W1, blocks(100, 6), 0);
    active.add("b", W2, blocks(200, 5), 0);
    KvSelector selector = selector(OptionalDouble.of(0.5), OptionalLong.empty(), 0.0);

    Selection selection =
        selector.select(
            REQUEST,
            overlaps(W1, 5, 5L),
            List.of(new Candidate(W1, 10), new Candidate(W2, 10)),
            active);

    assertThat(selection.workers()).extracting(WorkerCost::busy).containsExactly(true, false);
    // W1 would be cheaper (it caches the whole prompt): 0 + 11 = 11 against 5 + 10 = 15.
    assertThat(selection.workers()).extracting(WorkerCost::cost).containsExactly(11.0, 15.0);
    assertThat(selection.chosen()).contains(W2);
  }

  @Test
  void decodeBlocks_theWorkersOwnReport_countsWhenItIsHigher() {
    // The router booked 2 blocks on each; W1 says it uses 8 of 10 (other routers' requests).
    active.add("a", W1, blocks(100, 2), 0);
    active.add("b", W2, blocks(200, 2), 0);
    KvSelector selector = selector(OptionalDouble.of(0.5), OptionalLong.empty(), 0.0);

    Selection selection =
        selector.select(
            REQUEST,
            OverlapScores.EMPTY,
            List.of(new Candidate(W1, 10, 8), new Candidate(W2, 10, 1)),
            active);

    assertThat(selection.workers()).extracting(WorkerCost::busy).containsExactly(true, false);
    assertThat(selection.chosen()).contains(W2);
  }

  @Test
  void decodeBlocks_unknownCapacity_neverBusy() {
    active.add("a", W1, blocks(100, 1_000), 0);
    KvSelector selector = selector(OptionalDouble.of(0.0), OptionalLong.empty(), 0.0);

    Selection selection =
        selector.select(REQUEST, OverlapScores.EMPTY, List.of(Candidate.of(W1)), active);

    assertThat(selection.workers().get(0).busy()).isFalse();
    assertThat(selection.chosen()).contains(W1);
  }

  @Test
  void prefillTokens_busyOnlyAboveTheThreshold() {
    active.add("a", W1, new long[0], 101);
    active.add("b", W2, new long[0], 100);
    KvSelector selector = selector(OptionalDouble.empty(), OptionalLong.of(100), 0.0);

    Selection selection =
        selector.select(
            REQUEST, OverlapScores.EMPTY, List.of(Candidate.of(W1), Candidate.of(W2)), active);

    assertThat(selection.workers()).extracting(WorkerCost::busy).containsExactly(true, false);
    assertThat(selection.chosen()).contains(W2);
  }

  @Test
  void prefillTokens_dropBelowTheThresholdAtFirstToken() {
    active.add("a", W1, new long[0], 500);
    KvSelector selector = selector(OptionalDouble.empty(), OptionalLong.of(100), 0.0);
    List<Candidate> one = List.of(Candidate.of(W1));

    Selection before = selector.select(REQUEST, OverlapScores.EMPTY, one, active);
    active.markPrefillDone("a");
    Selection after = selector.select(REQUEST, OverlapScores.EMPTY, one, active);

    assertThat(before.outcome()).isEqualTo(Selection.Outcome.ALL_BUSY);
    assertThat(after.chosen()).contains(W1);
  }

  @Test
  void filtersCombineWithOr() {
    active.add("a", W1, blocks(100, 9), 0); // decode-busy only
    active.add("b", W2, new long[0], 1_000); // prefill-busy only
    KvSelector selector = selector(OptionalDouble.of(0.8), OptionalLong.of(500), 0.0);

    Selection selection =
        selector.select(
            REQUEST,
            OverlapScores.EMPTY,
            List.of(new Candidate(W1, 10), new Candidate(W2, 10), new Candidate(W3, 10)),
            active);

    assertThat(selection.workers()).extracting(WorkerCost::busy).containsExactly(true, true, false);
    assertThat(selection.chosen()).contains(W3);
  }

  @Test
  void allBusy_isReportedDistinctlyWithEveryCost() {
    active.add("a", W1, new long[0], 200);
    active.add("b", W2, new long[0], 300);
    KvSelector selector = selector(OptionalDouble.empty(), OptionalLong.of(100), 0.0);

    Selection selection =
        selector.select(
            REQUEST, OverlapScores.EMPTY, List.of(Candidate.of(W1), Candidate.of(W2)), active);

    assertThat(selection.outcome()).isEqualTo(Selection.Outcome.ALL_BUSY);
    assertThat(selection.chosen()).isEmpty();
    assertThat(selection.chosenCost()).isEmpty();
    assertThat(selection.workers()).extracting(WorkerCost::worker).containsExactly(W1, W2);
    assertThat(selection.workers()).allMatch(WorkerCost::busy);
    // (200 + 20) / 4 + 5 = 60 and (300 + 20) / 4 + 5 = 85.
    assertThat(selection.workers()).extracting(WorkerCost::cost).containsExactly(60.0, 85.0);
  }

  @Test
  void noFilters_nobodyIsBusy() {
    active.add("a", W1, blocks(100, 10_000), 1_000_000);

    Selection selection =
        selector(OptionalDouble.empty(), OptionalLong.empty(), 0.0)
            .select(REQUEST, OverlapScores.EMPTY, List.of(new Candidate(W1, 10)), active);

    assertThat(selection.chosen()).contains(W1);
  }

  @Test
  void positiveTemperature_neverSamplesABusyRank() {
    // W1 is by far the cheapest but busy; at a high temperature W2 and W3 share every draw.
    active.add("a", W1, new long[0], 101);
    active.add("b", W2, blocks(100, 20), 0);
    SplittableRandom random = new SplittableRandom(1);
    KvSelector selector =
        KvSelector.create(
            ScheduleSettings.defaults(BS)
                .withTemperature(100)
                .withBusyThresholds(OptionalDouble.empty(), OptionalLong.of(100)),
            random::nextDouble);
    List<Candidate> all = List.of(Candidate.of(W1), Candidate.of(W2), Candidate.of(W3));
    int w2 = 0;
    int w3 = 0;

    for (int i = 0; i < 5_000; i++) {
      WorkerRank chosen =
          selector.select(REQUEST, overlaps(W1, 5, 5L), all, active).chosen().orElseThrow();
      assertThat(chosen).isNotEqualTo(W1);
      if (chosen.equals(W2)) {
        w2++;
      } else {
        w3++;
      }
    }
    assertThat(w2).isPositive();
    assertThat(w3).isPositive();
  }

  private static KvSelector selector(
      OptionalDouble decodeFraction, OptionalLong prefillTokens, double temperature) {
    return KvSelector.create(
        ScheduleSettings.defaults(BS)
            .withTemperature(temperature)
            .withBusyThresholds(decodeFraction, prefillTokens),
        () -> 0.5);
  }
}
