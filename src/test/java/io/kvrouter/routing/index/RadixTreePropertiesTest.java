package io.kvrouter.routing.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.OverlapScores;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsCoverage;
import net.jqwik.api.statistics.StatisticsReport;

/**
 * The tree against {@link NaiveIndex} under random interleaved streams of many ranks ({@link
 * Scenario#streams}), as jqwik properties: a failing stream is shrunk to a minimal one, which jqwik
 * reports (as "Shrunk Sample") with the property's {@code seed}.
 *
 * <p>Rerunning a failure: jqwik keeps it in {@code target/jqwik-database}, so running the class again
 * ({@code mvn test -Dtest='RadixTreePropertiesTest'}) tries the shrunk sample first, then the failed
 * seed; {@code -Djqwik.failures.after.default=SAMPLE_ONLY} checks only the sample. To pin the
 * reported seed while debugging (and on another machine), put it in the annotation, e.g. {@code
 * @Property(tries = 300, seed = "1690772863208282457")}, and take it out again before committing.
 */
@StatisticsReport(onFailureOnly = true)
class RadixTreePropertiesTest {

  private static final List<long[]> ALL_QUERIES = Scenario.allQueries(Scenario.MAX_DEPTH);
  private static final String OUTCOMES = "outcomes";

  @Provide
  Arbitrary<List<Scenario.Step>> streams() {
    return Scenario.streams();
  }

  @Provide
  Arbitrary<List<Scenario.Step>> engineStreams() {
    return Scenario.engineStreams();
  }

  /**
   * Outcome and state equal the model's after every event. The streams must also reach every
   * outcome of every event kind they can, so the property does not pass for want of cases: each
   * (kind, outcome) pair is more than 1% of the events {@link #replay} applied (jqwik shows these
   * statistics when a property fails).
   */
  @Property(tries = 400)
  void tree_matchesModel_afterEveryEvent(@ForAll("streams") List<Scenario.Step> steps) {
    NaiveIndex model = new NaiveIndex();
    RadixTree tree = new RadixTree();
    replay(steps, model, tree, true);
    assertSameMatches(tree, model);
    Statistics.label(OUTCOMES).coverage(RadixTreePropertiesTest::everyOutcomeReached);
  }

  private static void everyOutcomeReached(StatisticsCoverage coverage) {
    for (Object[] reachable :
        new Object[][] {
          {EventKind.STORED, Outcome.APPLIED},
          {EventKind.STORED, Outcome.PARENT_BLOCK_NOT_FOUND},
          {EventKind.STORED, Outcome.INVALID_BLOCK_SEQUENCE},
          {EventKind.REMOVED, Outcome.APPLIED},
          {EventKind.REMOVED, Outcome.BLOCK_NOT_FOUND},
          {EventKind.CLEARED, Outcome.APPLIED}
        }) {
      coverage.check(reachable).percentage(p -> p > 1.0);
    }
  }

  @Property(tries = 300)
  void engineStream_neverRejected_andMatchesModel(@ForAll("engineStreams") List<Scenario.Step> steps) {
    NaiveIndex model = new NaiveIndex();
    RadixTree tree = new RadixTree();
    forEachEvent(steps, model, tree, action -> {
      Outcome expected = model.apply(action.rank(), action.event());
      Outcome outcome = tree.apply(action.rank(), action.event());
      assertThat(outcome).isEqualTo(expected);
      if (!(action.event() instanceof KvCacheEvent.Removed)) {
        assertThat(outcome).isEqualTo(Outcome.APPLIED);
      }
    });
    TreeInvariants.check(tree);
    assertSameMatches(tree, model);
  }

  @Property(tries = 300)
  void dump_rebuildsTheSameState(@ForAll("streams") List<Scenario.Step> steps) {
    NaiveIndex model = new NaiveIndex();
    RadixTree tree = new RadixTree();
    replay(steps, model, tree, false);

    List<RouterEvent> dump = tree.dump();
    RadixTree rebuilt = new RadixTree();
    for (RouterEvent e : dump) {
      assertThat(rebuilt.apply(e.worker(), e.event())).as("replaying %s", e).isEqualTo(Outcome.APPLIED);
    }
    TreeInvariants.check(rebuilt);
    assertThat(rebuilt.heldBlocks()).isEqualTo(tree.heldBlocks());
    assertThat(rebuilt.cachedBlocks()).isEqualTo(tree.cachedBlocks());
    for (long[] q : ALL_QUERIES) {
      assertThat(rebuilt.findMatches(q)).isEqualTo(tree.findMatches(q));
    }
    // and a dump replayed over a tree holding other state for the same ranks gives that state too
    RadixTree dirty = new RadixTree();
    NaiveIndex scratch = new NaiveIndex();
    replay(steps.subList(0, steps.size() / 2), scratch, dirty, false);
    for (RouterEvent e : dump) {
      dirty.apply(e.worker(), e.event());
    }
    for (WorkerRank rank : tree.workers()) {
      assertThat(dirty.heldBlocks().get(rank)).isEqualTo(tree.heldBlocks().get(rank));
    }
    TreeInvariants.check(dirty);
  }

  @Property(tries = 200)
  void rejectedEvents_leaveTheTreeUnchanged(@ForAll("streams") List<Scenario.Step> steps) {
    NaiveIndex model = new NaiveIndex();
    RadixTree tree = new RadixTree();
    forEachEvent(steps, model, tree, action -> {
      Map<WorkerRank, Map<Long, RadixTree.HeldBlock>> before = tree.heldBlocks();
      Map<WorkerRank, Integer> matchesBefore = tree.findMatches(action.query()).overlapBlocks();
      Outcome outcome = tree.apply(action.rank(), action.event());
      model.apply(action.rank(), action.event());
      if (outcome == Outcome.PARENT_BLOCK_NOT_FOUND || outcome == Outcome.INVALID_BLOCK_SEQUENCE) {
        Map<WorkerRank, Map<Long, RadixTree.HeldBlock>> after = tree.heldBlocks();
        before.putIfAbsent(action.rank(), new HashMap<>()); // the rank became known
        assertThat(after).isEqualTo(before);
        assertThat(tree.findMatches(action.query()).overlapBlocks()).isEqualTo(matchesBefore);
        TreeInvariants.check(tree);
      }
    });
  }

  /**
   * Applies every step to both and compares their outcomes (collected as statistics); with {@code
   * checkEach}, compares their state after each step too.
   */
  private static void replay(List<Scenario.Step> steps, NaiveIndex model, RadixTree tree, boolean checkEach) {
    for (Scenario.Step step : steps) {
      Scenario.Action action = new Scenario(model).next(step);
      if (!removesWorker(action, model, tree)) {
        Outcome expected = model.apply(action.rank(), action.event());
        Statistics.label(OUTCOMES).collect(EventKind.of(action.event()), expected);
        assertThat(tree.apply(action.rank(), action.event()))
            .as("outcome of %s on %s", action.event(), action.rank())
            .isEqualTo(expected);
      }
      if (checkEach) {
        TreeInvariants.check(tree);
        assertThat(tree.heldBlocks()).isEqualTo(model.heldBlocks());
        assertThat(tree.cachedBlocks()).isEqualTo(model.cachedBlocks());
        assertMatch(tree, model, action.query());
      }
    }
  }

  /**
   * Reads each step against the model, in order: removes a worker from both itself, hands every
   * event to {@code check}.
   */
  private static void forEachEvent(
      List<Scenario.Step> steps, NaiveIndex model, RadixTree tree, Consumer<Scenario.Action> check) {
    for (Scenario.Step step : steps) {
      Scenario.Action action = new Scenario(model).next(step);
      if (!removesWorker(action, model, tree)) {
        check.accept(action);
      }
    }
  }

  /** Removes the worker from both when {@code action} is a worker removal; says whether it was. */
  private static boolean removesWorker(Scenario.Action action, NaiveIndex model, RadixTree tree) {
    if (action.removedWorker() == null) {
      return false;
    }
    model.removeWorker(action.removedWorker());
    tree.removeWorker(action.removedWorker());
    return true;
  }

  private static void assertSameMatches(RadixTree tree, NaiveIndex model) {
    for (long[] q : ALL_QUERIES) {
      assertMatch(tree, model, q);
    }
  }

  private static void assertMatch(RadixTree tree, NaiveIndex model, long[] q) {
    OverlapScores scores = tree.findMatches(q);
    assertThat(scores.overlapBlocks()).as("matches of %s", java.util.Arrays.toString(q)).isEqualTo(model.scores(q));
    Map<WorkerRank, Long> cached = model.cachedBlocks();
    for (WorkerRank rank : scores.overlapBlocks().keySet()) {
      assertThat(scores.cachedBlocks().get(rank)).isEqualTo(cached.get(rank));
    }
    assertThat(scores.cachedBlocks().keySet()).isEqualTo(scores.overlapBlocks().keySet());
  }
}
