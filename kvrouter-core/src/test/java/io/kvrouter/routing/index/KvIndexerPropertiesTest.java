package io.kvrouter.routing.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.RouterEvent;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The sharded indexer against {@link NaiveIndex}: writes from many ranks spread over shards, on
 * seeded random streams ({@link Tries}, {@link Scenario#streams}).
 */
class KvIndexerPropertiesTest {

  private static final List<long[]> ALL_QUERIES = Scenario.allQueries(Scenario.MAX_DEPTH);

  @Test
  void indexer_matchesModel_andDumpRebuildsIt() {
    Tries.forAll(
        200, Scenario::streams, KvIndexerPropertiesTest::indexerMatchesModelAndDumpRebuildsIt);
  }

  private static void indexerMatchesModelAndDumpRebuildsIt(List<Scenario.Step> steps) {
    NaiveIndex model = new NaiveIndex();
    Map<Outcome, Long> outcomes = new EnumMap<>(Outcome.class);
    try (ShardedKvIndexer kv = new ShardedKvIndexer(3, null, ShardedKvIndexer.daemonThreads())) {
      for (Scenario.Step step : steps) {
        Scenario.Action action = new Scenario(model).next(step);
        if (action.removedWorker() != null) {
          model.removeWorker(action.removedWorker());
          kv.removeWorker(action.removedWorker());
        } else {
          outcomes.merge(model.apply(action.rank(), action.event()), 1L, Long::sum);
          kv.apply(action.rank(), action.event());
        }
      }
      kv.flush().toCompletableFuture().join();

      TreeInvariants.check(kv.tree());
      assertThat(kv.tree().heldBlocks()).isEqualTo(model.heldBlocks());
      assertThat(kv.cachedBlocks()).isEqualTo(model.cachedBlocks());
      assertThat(kv.stats())
          .isEqualTo(
              new KvIndexerStats(
                  outcomes.getOrDefault(Outcome.APPLIED, 0L),
                  outcomes.getOrDefault(Outcome.PARENT_BLOCK_NOT_FOUND, 0L),
                  outcomes.getOrDefault(Outcome.BLOCK_NOT_FOUND, 0L),
                  outcomes.getOrDefault(Outcome.INVALID_BLOCK_SEQUENCE, 0L),
                  0));
      for (long[] q : ALL_QUERIES) {
        assertThat(kv.findMatches(q).overlapBlocks()).isEqualTo(model.scores(q));
      }

      List<RouterEvent> dump = kv.dump().toCompletableFuture().join();
      try (ShardedKvIndexer copy =
          new ShardedKvIndexer(2, null, ShardedKvIndexer.daemonThreads())) {
        dump.forEach(e -> copy.apply(e.worker(), e.event()));
        copy.flush().toCompletableFuture().join();
        assertThat(copy.stats().rejected()).isZero();
        assertThat(copy.tree().heldBlocks()).isEqualTo(model.heldBlocks());
        for (long[] q : ALL_QUERIES) {
          assertThat(copy.findMatches(q)).isEqualTo(kv.findMatches(q));
        }
      }
    }
  }
}
