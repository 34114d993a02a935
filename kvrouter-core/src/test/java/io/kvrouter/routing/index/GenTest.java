package io.kvrouter.routing.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The generators of the property tests draw what they say they draw. */
class GenTest {

  private static final int DRAWS = 200_000;

  @Test
  void weighted_drawsByWeight() {
    SplittableRandom random = new SplittableRandom(1);
    for (Gen.Weighted<Scenario.Kind> kinds : List.of(Scenario.ANY_KINDS, Scenario.ENGINE_KINDS)) {
      Map<Scenario.Kind, Integer> counts = new EnumMap<>(Scenario.Kind.class);
      for (int i = 0; i < DRAWS; i++) {
        counts.merge(kinds.next(random), 1, Integer::sum);
      }
      for (Scenario.Kind kind : Scenario.Kind.values()) {
        double expected = (double) kinds.weight(kind) / kinds.total();
        assertThat(counts.getOrDefault(kind, 0) / (double) DRAWS)
            .as("%s", kind)
            .isCloseTo(expected, within(0.005));
      }
    }
    assertThat(Scenario.ANY_KINDS.total()).isEqualTo(28);
    assertThat(Scenario.ENGINE_KINDS.total()).isEqualTo(22);
  }

  @Test
  void ints_cutWideRangesIntoBandsTowardZero() {
    assertThat(new Gen.Ints(0, 1000).bands())
        .containsExactly(
            new long[] {0, 11},
            new long[] {12, 36},
            new long[] {37, 110},
            new long[] {111, 332},
            new long[] {333, 1000});
    assertThat(new Gen.Ints(-64, 64).bands())
        .containsExactly(
            new long[] {-64, -22},
            new long[] {-21, -8},
            new long[] {-7, -1},
            new long[] {0, 6},
            new long[] {7, 20},
            new long[] {21, 64});
    assertThat(new Gen.Ints(0, 30).bands()).containsExactly(new long[] {0, 9}, new long[] {10, 30});
    assertThat(new Gen.Ints(0, 5).bands()).containsExactly(new long[] {0, 5});
    assertThat(new Gen.Ints(-1000, -1).bands().get(0)).isEqualTo(new long[] {-1000, -335});
  }

  @Test
  void ints_stayInRange_andReachBothEnds() {
    SplittableRandom random = new SplittableRandom(2);
    long[][] ranges = {{0, 1000}, {-64, 64}, {0, 30}, {0, 5}, {0, 2}, {7, 7}};
    for (long[] range : ranges) {
      Gen.Ints ints = new Gen.Ints(range[0], range[1]);
      long seenMin = Long.MAX_VALUE;
      long seenMax = Long.MIN_VALUE;
      for (int i = 0; i < 20_000; i++) {
        long v = ints.nextLong(random);
        assertThat(v).isBetween(range[0], range[1]);
        seenMin = Math.min(seenMin, v);
        seenMax = Math.max(seenMax, v);
      }
      assertThat(new long[] {seenMin, seenMax}).isEqualTo(range);
    }
  }

  @Test
  void ints_favourSmallValues_inAWideRange() {
    SplittableRandom random = new SplittableRandom(3);
    int below12 = 0;
    for (int i = 0; i < DRAWS; i++) {
      if (Scenario.PICKS.nextInt(random) < 12) {
        below12++;
      }
    }
    // a fifth of the band draws, and 3 of the 5 boundary values (one draw in 21)
    double expected = 20.0 / 21 / 5 + 1.0 / 21 * 3 / 5;
    assertThat(below12 / (double) DRAWS).isCloseTo(expected, within(0.005));
  }

  @Test
  void sizes_areMostlyBelowTheCutoff_upToTheMaximum() {
    assertThat(new Gen.Sizes(1, 80, 400).cutoff()).isEqualTo(21);
    assertThat(new Gen.Sizes(1, 80, 300).cutoff()).isEqualTo(18);
    assertThat(new Gen.Sizes(1, 80, 200).cutoff()).isEqualTo(15);
    assertThat(new Gen.Sizes(0, 300, 300).cutoff()).isEqualTo(17);
    assertThat(new Gen.Sizes(1, 5, 400).cutoff()).isEqualTo(5);

    SplittableRandom random = new SplittableRandom(4);
    Gen.Sizes sizes = new Gen.Sizes(1, 80, 400);
    int atMax = 0;
    int aboveCutoff = 0;
    int min = Integer.MAX_VALUE;
    for (int i = 0; i < DRAWS; i++) {
      int size = sizes.next(random);
      assertThat(size).isBetween(1, 80);
      min = Math.min(min, size);
      if (size == 80) {
        atMax++;
      } else if (size > 21) {
        aboveCutoff++;
      }
    }
    assertThat(min).isEqualTo(1);
    assertThat(atMax / (double) DRAWS).isCloseTo(0.02 + 0.98 * 0.12 / 59, within(0.003));
    assertThat(aboveCutoff / (double) DRAWS).isCloseTo(0.98 * 0.12 * 58 / 59, within(0.005));
  }

  @Test
  void steps_stayWithinTheirRanges() {
    SplittableRandom random = new SplittableRandom(5);
    for (Scenario.Step step : Scenario.steps(random, 20_000, true)) {
      assertThat(step.worker()).isBetween(0, Scenario.WORKER_IDS * Scenario.DP_RANKS - 1);
      assertThat(step.tokens())
          .hasSizeBetween(1, Scenario.MAX_DEPTH)
          .allSatisfy(t -> assertThat(t).isBetween(0, 2));
      assertThat(step.from()).isBetween(0, Scenario.MAX_DEPTH);
      assertThat(List.of(step.pick1(), step.pick2(), step.pick3()))
          .allSatisfy(p -> assertThat(p).isBetween(0, 1000));
    }
    assertThat(Scenario.steps(random, 5_000, false))
        .extracting(Scenario.Step::kind)
        .containsOnly(
            Scenario.Kind.STORE,
            Scenario.Kind.REMOVE,
            Scenario.Kind.CLEAR,
            Scenario.Kind.REMOVE_WORKER);
  }
}
