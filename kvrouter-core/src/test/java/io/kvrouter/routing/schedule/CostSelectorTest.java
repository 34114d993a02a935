package io.kvrouter.routing.schedule;

import static io.kvrouter.routing.schedule.Fixtures.W1;
import static io.kvrouter.routing.schedule.Fixtures.W2;
import static io.kvrouter.routing.schedule.Fixtures.W3;
import static io.kvrouter.routing.schedule.Fixtures.blocks;
import static io.kvrouter.routing.schedule.Fixtures.overlaps;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.kvrouter.protocol.OverlapScores;
import io.kvrouter.protocol.WorkerCost;
import io.kvrouter.protocol.WorkerRank;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The cost function at temperature 0, against values worked out by hand. */
class CostSelectorTest {

  private static final int BS = 4;

  /** 20 tokens, five complete blocks of 4 (hashes 1..5). */
  private static final ScheduleRequest REQUEST = new ScheduleRequest(20, blocks(1, 5));

  private static final List<Candidate> ALL =
      List.of(Candidate.of(W1), Candidate.of(W2), Candidate.of(W3));

  private ActiveSequences active;

  @BeforeEach
  void setUp() {
    active = ActiveSequences.create(() -> 0L);
  }

  /**
   * Reference §4's worked example (weight 1): W1 8 + 10 = 18, W2 5 + 5 = 10 (chosen), W3 2 + 9 =
   * 11. W1 has 12 prefill tokens and 5 unrelated blocks active and no overlap: prefill (12 + 20) /
   * 4 = 8, decode 5 + 5 = 10. W2 is idle: prefill 20 / 4 = 5, decode 5. W3 caches 3 blocks and has
   * 4 unrelated blocks active: prefill (20 - 12) / 4 = 2, decode 4 + 5 = 9.
   */
  private OverlapScores workedExample() {
    active.add("w1-load", W1, blocks(100, 5), 12);
    active.add("w3-load", W3, blocks(200, 4), 0);
    return overlaps(W3, 3, 3L);
  }

  @Test
  void select_referenceWorkedExample_choosesW2WithCost10() {
    OverlapScores overlaps = workedExample();

    Selection selection =
        selector(ScheduleSettings.defaults(BS)).select(REQUEST, overlaps, ALL, active);

    assertThat(selection.outcome()).isEqualTo(Selection.Outcome.CHOSEN);
    assertThat(selection.chosen()).contains(W2);
    assertThat(selection.inputTokens()).isEqualTo(20);
    assertThat(selection.requestBlocks()).isEqualTo(5);
    assertThat(selection.workers())
        .containsExactly(
            new WorkerCost(W1, 0, 0, 20, 32, 10, 18.0, false),
            new WorkerCost(W2, 0, 0, 20, 20, 5, 10.0, false),
            new WorkerCost(W3, 3, 3, 8, 8, 9, 11.0, false));
    assertThat(selection.chosenCost()).contains(selection.workers().get(1));
  }

  @Test
  void select_weightScalesOnlyThePrefillTerm() {
    OverlapScores overlaps = workedExample();

    Selection half =
        selector(ScheduleSettings.defaults(BS).withOverlapScoreWeight(0.5))
            .select(REQUEST, overlaps, ALL, active);
    Selection zero =
        selector(ScheduleSettings.defaults(BS).withOverlapScoreWeight(0.0))
            .select(REQUEST, overlaps, ALL, active);
    Selection three =
        selector(ScheduleSettings.defaults(BS).withOverlapScoreWeight(3.0))
            .select(REQUEST, overlaps, ALL, active);

    assertThat(half.workers()).extracting(WorkerCost::cost).containsExactly(14.0, 7.5, 10.0);
    assertThat(half.chosen()).contains(W2);
    assertThat(zero.workers()).extracting(WorkerCost::cost).containsExactly(10.0, 5.0, 9.0);
    assertThat(zero.chosen()).contains(W2);
    // 3 * 8 + 10 = 34, 3 * 5 + 5 = 20, 3 * 2 + 9 = 15: a heavy prefill weight favours the overlap.
    assertThat(three.workers()).extracting(WorkerCost::cost).containsExactly(34.0, 20.0, 15.0);
    assertThat(three.chosen()).contains(W3);
  }

  @Test
  void decodeBlocks_isTheUnionOfActiveAndRequestBlocks() {
    // Active on W1: blocks 1, 2 (shared with the request) and 900: union with 1..5 is 6 blocks.
    active.add("shared", W1, new long[] {1, 2, 900}, 0);

    Selection selection =
        selector(ScheduleSettings.defaults(BS))
            .select(REQUEST, OverlapScores.EMPTY, List.of(Candidate.of(W1)), active);

    WorkerCost cost = selection.workers().get(0);
    assertThat(cost.decodeBlocks()).isEqualTo(6);
    assertThat(cost.cost()).isEqualTo(20.0 / BS + 6);
  }

  @Test
  void prefillBlocks_areFractional() {
    // 22 tokens: five complete blocks and 2 tokens more; idle worker: 22 / 4 = 5.5 + 5 = 10.5.
    ScheduleRequest request = new ScheduleRequest(22, blocks(1, 5));

    WorkerCost cost =
        selector(ScheduleSettings.defaults(BS))
            .select(request, OverlapScores.EMPTY, List.of(Candidate.of(W1)), active)
            .workers()
            .get(0);

    assertThat(cost.prefillTokens()).isEqualTo(22);
    assertThat(cost.cost()).isCloseTo(10.5, within(1e-12));
  }

  @Test
  void fullOverlap_leavesOnlyThePartialBlockToPrefill() {
    ScheduleRequest request = new ScheduleRequest(18, blocks(1, 4));

    WorkerCost cost =
        selector(ScheduleSettings.defaults(BS))
            .select(request, overlaps(W1, 4, 4L), List.of(Candidate.of(W1)), active)
            .workers()
            .get(0);

    assertThat(cost.newPrefillTokens()).isEqualTo(2);
    assertThat(cost.cost()).isEqualTo(2.0 / BS + 4);
  }

  @Test
  void newPrefillTokens_clampAtZero() {
    assertThat(new ScheduleRequest(18, blocks(1, 4)).newPrefillTokens(5, BS)).isZero();
    assertThat(ScheduleRequest.ofTokens(18).newPrefillTokens(0, BS)).isEqualTo(18);
  }

  @Test
  void requestWithoutHashes_addsNoDecodeBlocks() {
    active.add("a", W1, blocks(100, 3), 0);

    WorkerCost cost =
        selector(ScheduleSettings.defaults(BS))
            .select(
                ScheduleRequest.ofTokens(20),
                OverlapScores.EMPTY,
                List.of(Candidate.of(W1)),
                active)
            .workers()
            .get(0);

    assertThat(cost.decodeBlocks()).isEqualTo(3);
    assertThat(cost.cost()).isEqualTo(5.0 + 3);
  }

  @Test
  void tie_fewestCachedBlocksWins() {
    // Both idle and matching nothing: equal costs 5 + 5; W1 caches 100 blocks, W2 caches 5.
    OverlapScores overlaps = overlaps(W1, 0, 100L, W2, 0, 5L);
    List<Candidate> candidates = List.of(Candidate.of(W1), Candidate.of(W2));

    Selection selection =
        selector(ScheduleSettings.defaults(BS)).select(REQUEST, overlaps, candidates, active);

    assertThat(selection.workers()).extracting(WorkerCost::cost).containsOnly(10.0);
    assertThat(selection.chosen()).contains(W2);
  }

  @Test
  void tie_equalCachedBlocks_firstCandidateWins() {
    KvSelector selector = selector(ScheduleSettings.defaults(BS));

    Selection forward =
        selector.select(
            REQUEST, OverlapScores.EMPTY, List.of(Candidate.of(W1), Candidate.of(W2)), active);
    Selection backward =
        selector.select(
            REQUEST, OverlapScores.EMPTY, List.of(Candidate.of(W2), Candidate.of(W1)), active);

    assertThat(forward.chosen()).contains(W1);
    assertThat(backward.chosen()).contains(W2);
  }

  @Test
  void tie_cachedBlocksDoNotOverrideALowerCost() {
    // W1 caches more in all but holds the prompt: it is cheaper, so the tie-break does not apply.
    OverlapScores overlaps = overlaps(W1, 5, 1000L, W2, 0, 0L);

    Selection selection =
        selector(ScheduleSettings.defaults(BS))
            .select(REQUEST, overlaps, List.of(Candidate.of(W1), Candidate.of(W2)), active);

    assertThat(selection.chosen()).contains(W1);
  }

  @Test
  void dpRanks_areScoredSeparately() {
    WorkerRank rank0 = new WorkerRank("w", 0);
    WorkerRank rank1 = new WorkerRank("w", 1);

    Selection selection =
        selector(ScheduleSettings.defaults(BS))
            .select(
                REQUEST,
                overlaps(rank1, 5, 5L),
                List.of(Candidate.of(rank0), Candidate.of(rank1)),
                active);

    assertThat(selection.chosen()).contains(rank1);
    assertThat(selection.workers()).extracting(WorkerCost::overlapBlocks).containsExactly(0, 5);
  }

  @Test
  void select_booksNothing() {
    OverlapScores overlaps = workedExample();
    Map<WorkerRank, WorkerLoad> before = active.loads();

    for (int i = 0; i < 10; i++) {
      selector(ScheduleSettings.defaults(BS)).select(REQUEST, overlaps, ALL, active);
    }

    assertThat(active.loads()).isEqualTo(before);
    assertThat(active.activeRequests()).isEqualTo(2);
  }

  @Test
  void select_afterBookingTheChoice_seesTheNewLoad() {
    KvSelector selector = selector(ScheduleSettings.defaults(BS));
    List<Candidate> two = List.of(Candidate.of(W1), Candidate.of(W2));
    Selection first = selector.select(REQUEST, OverlapScores.EMPTY, two, active);
    WorkerCost chosen = first.chosenCost().orElseThrow();

    active.add("r1", chosen.worker(), REQUEST.blockHashes(), chosen.newPrefillTokens());
    Selection second = selector.select(REQUEST, OverlapScores.EMPTY, two, active);

    assertThat(first.chosen()).contains(W1);
    // W1 now: prefill (20 + 20) / 4 = 10, decode |1..5 ∪ 1..5| = 5, cost 15; W2 idle, cost 10.
    assertThat(second.workers()).extracting(WorkerCost::cost).containsExactly(15.0, 10.0);
    assertThat(second.chosen()).contains(W2);
  }

  @Test
  void duplicateCandidates_countOnce() {
    Selection selection =
        selector(ScheduleSettings.defaults(BS))
            .select(
                REQUEST,
                OverlapScores.EMPTY,
                List.of(Candidate.of(W1), Candidate.of(W2), Candidate.of(W1)),
                active);

    assertThat(selection.workers()).extracting(WorkerCost::worker).containsExactly(W1, W2);
  }

  @Test
  void noCandidates_isNoWorkers() {
    Selection selection =
        selector(ScheduleSettings.defaults(BS))
            .select(REQUEST, OverlapScores.EMPTY, List.of(), active);

    assertThat(selection.outcome()).isEqualTo(Selection.Outcome.NO_WORKERS);
    assertThat(selection.chosen()).isEmpty();
    assertThat(selection.chosenCost()).isEmpty();
    assertThat(selection.workers()).isEmpty();
  }

  private static KvSelector selector(ScheduleSettings settings) {
    return KvSelector.create(
        settings,
        () -> {
          throw new AssertionError("temperature 0 must not draw a random number");
        });
  }
}
