package io.kvrouter.routing.schedule;

import static io.kvrouter.routing.schedule.Fixtures.W1;
import static io.kvrouter.routing.schedule.Fixtures.W2;
import static io.kvrouter.routing.schedule.Fixtures.W3;
import static io.kvrouter.routing.schedule.Fixtures.blocks;
import static io.kvrouter.routing.schedule.Fixtures.overlaps;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.kvrouter.protocol.OverlapScores;
import io.kvrouter.protocol.WorkerRank;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Softmax sampling at temperature > 0, with seeded random sources. */
class TemperatureTest {

  private static final int BS = 4;
  private static final int DRAWS = 30_000;
  private static final ScheduleRequest REQUEST = new ScheduleRequest(20, blocks(1, 5));
  private static final List<Candidate> ALL =
      List.of(Candidate.of(W1), Candidate.of(W2), Candidate.of(W3));

  private ActiveSequences active;
  private OverlapScores overlaps;

  /** The reference's worked example: costs W1 18, W2 10, W3 11. */
  @BeforeEach
  void setUp() {
    active = ActiveSequences.create(() -> 0L);
    active.add("w1-load", W1, blocks(100, 5), 12);
    active.add("w3-load", W3, blocks(200, 4), 0);
    overlaps = overlaps(W3, 3, 3L);
  }

  @Test
  void temperatureZero_alwaysChoosesTheCheapest() {
    Map<WorkerRank, Integer> counts = draw(0.0, 42, 1_000);

    assertThat(counts).containsOnlyKeys(W2).containsEntry(W2, 1_000);
  }

  @Test
  void temperatureOne_matchesTheRangeNormalisedSoftmax() {
    // p ∝ exp(-(c - 10) / ((18 - 10) * 1)): W1 e^-1, W2 1, W3 e^-1/8.
    double w1 = Math.exp(-1.0);
    double w2 = 1.0;
    double w3 = Math.exp(-1.0 / 8);
    double sum = w1 + w2 + w3;

    Map<WorkerRank, Integer> counts = draw(1.0, 7, DRAWS);

    assertThat(share(counts, W1)).isCloseTo(w1 / sum, within(0.015));
    assertThat(share(counts, W2)).isCloseTo(w2 / sum, within(0.015));
    assertThat(share(counts, W3)).isCloseTo(w3 / sum, within(0.015));
    assertThat(counts.get(W2)).isGreaterThan(counts.get(W3));
    assertThat(counts.get(W3)).isGreaterThan(counts.get(W1));
  }

  @Test
  void lowerTemperature_concentratesOnTheCheapest() {
    int cold = draw(0.1, 11, DRAWS).getOrDefault(W2, 0);
    int warm = draw(1.0, 11, DRAWS).getOrDefault(W2, 0);
    int hot = draw(10.0, 11, DRAWS).getOrDefault(W2, 0);

    assertThat(cold).isGreaterThan(warm);
    assertThat(warm).isGreaterThan(hot);
  }

  @Test
  void tinyTemperature_behavesLikeArgmin() {
    // exp(-1000) underflows to 0: every draw lands on the cheapest.
    assertThat(draw(1e-3, 3, 2_000)).containsOnlyKeys(W2);
  }

  @Test
  void extremeTemperature_approachesUniform() {
    Map<WorkerRank, Integer> counts = draw(1e6, 5, DRAWS);

    for (WorkerRank rank : List.of(W1, W2, W3)) {
      assertThat(share(counts, rank)).isCloseTo(1.0 / 3, within(0.015));
    }
  }

  @Test
  void equalCosts_areUniform() {
    ActiveSequences idle = ActiveSequences.create(() -> 0L);
    SplittableRandom random = new SplittableRandom(9);
    KvSelector selector =
        KvSelector.create(ScheduleSettings.defaults(BS).withTemperature(0.5), random::nextDouble);
    Map<WorkerRank, Integer> counts = new HashMap<>();

    for (int i = 0; i < DRAWS; i++) {
      WorkerRank rank =
          selector.select(REQUEST, OverlapScores.EMPTY, ALL, idle).chosen().orElseThrow();
      counts.merge(rank, 1, Integer::sum);
    }

    for (WorkerRank rank : List.of(W1, W2, W3)) {
      assertThat(share(counts, rank)).isCloseTo(1.0 / 3, within(0.015));
    }
  }

  @Test
  void sameSeed_sameChoices() {
    assertThat(sequence(1.0, 123, 200)).isEqualTo(sequence(1.0, 123, 200));
    assertThat(sequence(1.0, 123, 200)).isNotEqualTo(sequence(1.0, 124, 200));
  }

  @Test
  void softmax_walksTheCumulativeWeights() {
    double[] costs = {18, 10, 11};
    double w1 = Math.exp(-1.0);
    double w3 = Math.exp(-1.0 / 8);
    double sum = w1 + 1 + w3;

    assertThat(Softmax.sample(costs, 1.0, () -> 0.0)).isZero();
    assertThat(Softmax.sample(costs, 1.0, () -> (w1 - 1e-9) / sum)).isZero();
    assertThat(Softmax.sample(costs, 1.0, () -> (w1 + 1e-9) / sum)).isEqualTo(1);
    assertThat(Softmax.sample(costs, 1.0, () -> (w1 + 1 + 1e-9) / sum)).isEqualTo(2);
    assertThat(Softmax.sample(costs, 1.0, () -> Math.nextDown(1.0))).isEqualTo(2);
  }

  @Test
  void softmax_equalCosts_splitTheUnitIntervalEvenly() {
    double[] costs = {4, 4, 4, 4};

    assertThat(Softmax.sample(costs, 2.0, () -> 0.0)).isZero();
    assertThat(Softmax.sample(costs, 2.0, () -> 0.26)).isEqualTo(1);
    assertThat(Softmax.sample(costs, 2.0, () -> 0.74)).isEqualTo(2);
    assertThat(Softmax.sample(costs, 2.0, () -> Math.nextDown(1.0))).isEqualTo(3);
  }

  @Test
  void softmax_weightsThatUnderflow_areNeverChosen() {
    double[] costs = {0, 1};

    assertThat(Softmax.sample(costs, 1e-6, () -> Math.nextDown(1.0))).isZero();
  }

  private Map<WorkerRank, Integer> draw(double temperature, long seed, int draws) {
    Map<WorkerRank, Integer> counts = new HashMap<>();
    for (WorkerRank rank : sequence(temperature, seed, draws)) {
      counts.merge(rank, 1, Integer::sum);
    }
    return counts;
  }

  private List<WorkerRank> sequence(double temperature, long seed, int draws) {
    SplittableRandom random = new SplittableRandom(seed);
    KvSelector selector =
        KvSelector.create(
            ScheduleSettings.defaults(BS).withTemperature(temperature), random::nextDouble);
    List<WorkerRank> chosen = new ArrayList<>(draws);
    for (int i = 0; i < draws; i++) {
      chosen.add(selector.select(REQUEST, overlaps, ALL, active).chosen().orElseThrow());
    }
    return chosen;
  }

  private static double share(Map<WorkerRank, Integer> counts, WorkerRank rank) {
    return counts.getOrDefault(rank, 0)
        / (double) counts.values().stream().mapToInt(Integer::intValue).sum();
  }
}
