package io.kvrouter.routing.index;

import static io.kvrouter.protocol.KvCacheEvent.cleared;
import static io.kvrouter.protocol.KvCacheEvent.removed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.OverlapScores;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RadixTreeTest {
  private static final WorkerRank A = WorkerRank.of("a");
  private static final WorkerRank A1 = new WorkerRank("a", 1);
  private static final WorkerRank B = WorkerRank.of("b");

  private final RadixTree tree = new RadixTree();

  @AfterEach
  void treeStaysConsistent() {
    TreeInvariants.check(tree);
  }

  /** Block {@code n}: engine hash {@code 1000 + n}, local hash {@code n}. */
  private static StoredBlock block(int n) {
    return new StoredBlock(1000 + n, n);
  }

  private static KvCacheEvent stored(Integer parent, int... blocks) {
    StoredBlock[] b = new StoredBlock[blocks.length];
    for (int i = 0; i < blocks.length; i++) {
      b[i] = block(blocks[i]);
    }
    return KvCacheEvent.stored(parent == null ? null : 1000L + parent, b);
  }

  private static KvCacheEvent removedBlocks(int... blocks) {
    long[] hashes = new long[blocks.length];
    for (int i = 0; i < blocks.length; i++) {
      hashes[i] = 1000 + blocks[i];
    }
    return removed(hashes);
  }

  private static long[] prompt(long... localHashes) {
    return localHashes;
  }

  private Map<WorkerRank, Integer> matches(long... localHashes) {
    return tree.findMatches(localHashes).overlapBlocks();
  }

  private Outcome apply(WorkerRank rank, KvCacheEvent event) {
    return tree.apply(rank, event);
  }

  @Test
  void stored_chainFromRoot_matchesConsecutiveBlocks() {
    assertThat(apply(A, stored(null, 1, 2, 3))).isEqualTo(Outcome.APPLIED);

    assertThat(matches(1, 2, 3)).containsExactly(entry(A, 3));
    assertThat(matches(1, 2, 3, 4, 5)).containsExactly(entry(A, 3));
    assertThat(matches(1, 2, 9, 3)).containsExactly(entry(A, 2));
    assertThat(matches(2, 3)).isEmpty();
    assertThat(matches()).isEmpty();
    assertThat(tree.findMatches(prompt(1)).cachedBlocks()).containsExactly(entry(A, 3L));
  }

  /** Nodes along a path that the same ranks hold share one set object rather than a copy each. */
  @Test
  void nodesOnAPathOfTheSameRanks_shareOneWorkerSet() {
    WorkerRank c = WorkerRank.of("c");
    apply(A, stored(null, 1, 2, 3, 4));
    apply(B, stored(null, 1, 2, 3, 4));
    apply(c, stored(null, 1, 2, 3, 4));
    apply(c, removedBlocks(4, 3, 2));

    Node n1 = tree.root().child(1);
    Node n2 = n1.child(2);
    Node n3 = n2.child(3);
    Node n4 = n3.child(4);
    assertThat(n3.workers()).isSameAs(n2.workers()).isSameAs(n4.workers());
    assertThat(n2.workers().size()).isEqualTo(2);
    assertThat(n1.workers().size()).isEqualTo(3);
  }

  @Test
  void stored_withParent_extendsTheWorkersChain() {
    apply(A, stored(null, 1, 2));
    assertThat(apply(A, stored(2, 3, 4))).isEqualTo(Outcome.APPLIED);

    assertThat(matches(1, 2, 3, 4)).containsExactly(entry(A, 4));
    assertThat(tree.cachedBlocks()).containsExactly(entry(A, 4L));
  }

  @Test
  void sharedPrefix_oneNodePerPosition_workersDropOutWhereTheyDiverge() {
    apply(A, stored(null, 1, 2, 3, 4));
    apply(B, KvCacheEvent.stored(null, block(1), block(2), new StoredBlock(2005, 5)));

    assertThat(tree.root().children()).hasSize(1);
    assertThat(matches(1, 2, 3, 4)).containsOnly(entry(A, 4), entry(B, 2));
    assertThat(matches(1, 2, 5)).containsOnly(entry(A, 2), entry(B, 3));
    assertThat(matches(1)).containsOnly(entry(A, 1), entry(B, 1));
    assertThat(tree.findMatches(prompt(1, 2, 5)).cachedBlocks())
        .containsOnly(entry(A, 4L), entry(B, 3L));
  }

  @Test
  void dpRanks_areSeparateTargets() {
    apply(A, stored(null, 1, 2));
    apply(A1, stored(null, 1));

    assertThat(matches(1, 2)).containsOnly(entry(A, 2), entry(A1, 1));
  }

  @Test
  void stored_parentMissing_rejectsWholeEventAndChangesNothing() {
    apply(A, stored(null, 1, 2));
    var before = tree.heldBlocks();

    assertThat(apply(A, stored(7, 8, 9))).isEqualTo(Outcome.PARENT_BLOCK_NOT_FOUND);

    assertThat(tree.heldBlocks()).isEqualTo(before);
    assertThat(matches(1, 2)).containsExactly(entry(A, 2));
    assertThat(tree.root().children()).hasSize(1);
  }

  @Test
  void stored_parentHeldOnlyByAnotherWorker_isNotFound() {
    apply(A, stored(null, 1, 2));

    assertThat(apply(B, stored(2, 3))).isEqualTo(Outcome.PARENT_BLOCK_NOT_FOUND);

    assertThat(matches(1, 2, 3)).containsExactly(entry(A, 2));
    assertThat(tree.heldBlocks().get(B)).isEmpty();
  }

  @Test
  void stored_parentOnlyOnAnotherDpRank_isNotFound() {
    apply(A, stored(null, 1, 2));

    assertThat(apply(A1, stored(2, 3))).isEqualTo(Outcome.PARENT_BLOCK_NOT_FOUND);
    assertThat(tree.cachedBlocks()).containsOnly(entry(A, 2L), entry(A1, 0L));
  }

  @Test
  void stored_blockEqualToItsParent_isInvalidAndChangesNothing() {
    apply(A, stored(null, 1, 2));
    var before = tree.heldBlocks();

    assertThat(apply(A, KvCacheEvent.stored(1002L, new StoredBlock(1002, 7))))
        .isEqualTo(Outcome.INVALID_BLOCK_SEQUENCE);

    assertThat(tree.heldBlocks()).isEqualTo(before);
    assertThat(matches(1, 2, 7)).containsExactly(entry(A, 2));
  }

  @Test
  void stored_ancestorBelowItsDescendant_isInvalidAndChangesNothing() {
    apply(A, stored(null, 1, 2, 3));
    var before = tree.heldBlocks();

    // block 1 again, now below block 3: it would become its own ancestor
    assertThat(apply(A, stored(3, 4, 1))).isEqualTo(Outcome.INVALID_BLOCK_SEQUENCE);

    assertThat(tree.heldBlocks()).isEqualTo(before);
    assertThat(matches(1, 2, 3, 4)).containsExactly(entry(A, 3));
  }

  @Test
  void stored_hashRepeatedInEvent_isInvalidAndChangesNothing() {
    apply(A, stored(null, 1));

    assertThat(apply(A, stored(1, 2, 3, 2))).isEqualTo(Outcome.INVALID_BLOCK_SEQUENCE);

    assertThat(tree.heldBlocks().get(A)).containsOnlyKeys(1001L);
    assertThat(matches(1, 2)).containsExactly(entry(A, 1));
  }

  @Test
  void stored_again_isIdempotent() {
    apply(A, stored(null, 1, 2, 3));
    apply(B, stored(null, 1));

    assertThat(apply(A, stored(null, 1, 2, 3))).isEqualTo(Outcome.APPLIED);
    assertThat(apply(A, stored(1, 2))).isEqualTo(Outcome.APPLIED);

    assertThat(tree.cachedBlocks()).containsOnly(entry(A, 3L), entry(B, 1L));
    assertThat(matches(1, 2, 3)).containsOnly(entry(A, 3), entry(B, 1));
  }

  @Test
  void stored_knownHashAtNewPosition_movesTheBlockWithEverythingBelowIt() {
    apply(A, stored(null, 1, 2, 3));
    apply(A, stored(null, 5));

    // the engine reports block 2 (with block 3 below it) under block 5 now
    assertThat(apply(A, KvCacheEvent.stored(1005L, block(2)))).isEqualTo(Outcome.APPLIED);

    assertThat(matches(1, 2, 3)).containsExactly(entry(A, 1));
    assertThat(matches(5, 2, 3)).containsExactly(entry(A, 3));
    assertThat(tree.cachedBlocks()).containsExactly(entry(A, 4L));
  }

  @Test
  void removed_leaf_dropsTheNodeWhenItsLastWorkerLeaves() {
    apply(A, stored(null, 1, 2));
    apply(B, stored(null, 1));

    assertThat(apply(A, removedBlocks(2))).isEqualTo(Outcome.APPLIED);

    Node first = tree.root().child(1);
    assertThat(first.children()).isEmpty();
    assertThat(matches(1, 2)).containsOnly(entry(A, 1), entry(B, 1));
  }

  @Test
  void removed_lastWorkerLeaves_cascadesTheWholeSubtreeAway() {
    apply(A, stored(null, 1, 2, 3));

    apply(A, removedBlocks(3, 2, 1));

    assertThat(tree.root().children()).isEmpty();
    assertThat(matches(1, 2, 3)).isEmpty();
    assertThat(tree.cachedBlocks()).containsExactly(entry(A, 0L));
  }

  @Test
  void removed_unknownHashes_countAsNotFoundAndTheRestOfTheBatchApplies() {
    apply(A, stored(null, 1, 2, 3));

    assertThat(apply(A, removedBlocks(3, 42, 2))).isEqualTo(Outcome.BLOCK_NOT_FOUND);

    assertThat(tree.heldBlocks().get(A)).containsOnlyKeys(1001L);
    assertThat(matches(1, 2, 3)).containsExactly(entry(A, 1));
  }

  @Test
  void removed_blockOfAnotherWorker_isNotFoundAndChangesNothing() {
    apply(A, stored(null, 1, 2));
    var before = tree.heldBlocks();

    assertThat(apply(B, removedBlocks(2))).isEqualTo(Outcome.BLOCK_NOT_FOUND);

    before.put(B, Map.of());
    assertThat(tree.heldBlocks()).isEqualTo(before);
    assertThat(matches(1, 2)).containsExactly(entry(A, 2));
  }

  @Test
  void removed_parentBeforeChild_childStopsMatchingButStaysHeld() {
    apply(A, stored(null, 1, 2, 3));

    assertThat(apply(A, removedBlocks(2))).isEqualTo(Outcome.APPLIED);

    assertThat(matches(1, 2, 3)).containsExactly(entry(A, 1));
    assertThat(tree.cachedBlocks()).containsExactly(entry(A, 2L));
    // the child is still the worker's: removing it later is not an error
    assertThat(apply(A, removedBlocks(3))).isEqualTo(Outcome.APPLIED);
    assertThat(tree.cachedBlocks()).containsExactly(entry(A, 1L));
    assertThat(tree.root().child(1).children()).isEmpty();
  }

  @Test
  void removed_parentThenStoredAgain_reusesTheKeptChildren() {
    apply(A, stored(null, 1, 2, 3, 4));
    apply(A, removedBlocks(2));
    assertThat(matches(1, 2, 3, 4)).containsExactly(entry(A, 1));

    assertThat(apply(A, stored(1, 2))).isEqualTo(Outcome.APPLIED);

    assertThat(matches(1, 2, 3, 4)).containsExactly(entry(A, 4));
    assertThat(tree.cachedBlocks()).containsExactly(entry(A, 4L));
  }

  @Test
  void stored_belowADormantBlock_isAcceptedAndStaysDormant() {
    apply(A, stored(null, 1, 2, 3));
    apply(A, removedBlocks(2));

    assertThat(apply(A, stored(3, 4))).isEqualTo(Outcome.APPLIED);

    assertThat(matches(1, 2, 3, 4)).containsExactly(entry(A, 1));
    apply(A, stored(1, 2));
    assertThat(matches(1, 2, 3, 4)).containsExactly(entry(A, 4));
  }

  @Test
  void removed_ofAGhost_isNotFound() {
    apply(A, stored(null, 1, 2, 3));
    apply(A, removedBlocks(2));

    assertThat(apply(A, removedBlocks(2))).isEqualTo(Outcome.BLOCK_NOT_FOUND);
    assertThat(apply(A, stored(2, 9))).isEqualTo(Outcome.PARENT_BLOCK_NOT_FOUND);
  }

  @Test
  void twoHashesForTheSameTokens_workerLeavesTheNodeOnlyWithTheLast() {
    apply(A, stored(null, 1));
    apply(A, KvCacheEvent.stored(null, new StoredBlock(5001, 1)));
    assertThat(tree.cachedBlocks()).containsExactly(entry(A, 2L));

    apply(A, removed(1001));
    assertThat(matches(1)).containsExactly(entry(A, 1));

    apply(A, removed(5001));
    assertThat(matches(1)).isEmpty();
    assertThat(tree.root().children()).isEmpty();
  }

  @Test
  void cleared_dropsOneRankOnly_andKeepsItKnown() {
    apply(A, stored(null, 1, 2));
    apply(A1, stored(null, 1, 2));
    apply(B, stored(null, 1));

    assertThat(apply(A, cleared())).isEqualTo(Outcome.APPLIED);

    assertThat(matches(1, 2)).containsOnly(entry(A1, 2), entry(B, 1));
    assertThat(tree.cachedBlocks()).containsOnly(entry(A, 0L), entry(A1, 2L), entry(B, 1L));
    assertThat(apply(A, removedBlocks(1))).isEqualTo(Outcome.BLOCK_NOT_FOUND);
  }

  @Test
  void removeWorker_dropsEveryRankAndForgetsThem() {
    apply(A, stored(null, 1, 2));
    apply(A1, stored(null, 1, 3));
    apply(B, stored(null, 1));

    tree.removeWorker("a");

    assertThat(matches(1, 2)).containsExactly(entry(B, 1));
    assertThat(matches(1, 3)).containsExactly(entry(B, 1));
    assertThat(tree.workers()).containsExactly(B);
    assertThat(tree.root().child(1).children()).isEmpty();
  }

  @Test
  void removeWorker_thenEventsAgain_startsFromNothing() {
    apply(A, stored(null, 1, 2));
    tree.removeWorker("a");

    assertThat(apply(A, stored(1, 2))).isEqualTo(Outcome.PARENT_BLOCK_NOT_FOUND);
    assertThat(apply(A, stored(null, 1))).isEqualTo(Outcome.APPLIED);
    assertThat(matches(1, 2)).containsExactly(entry(A, 1));
  }

  @Test
  void findMatches_firstBlockUnknown_isEmpty() {
    apply(A, stored(null, 1, 2));

    assertThat(tree.findMatches(prompt(2, 1))).isEqualTo(OverlapScores.EMPTY);
  }

  @Test
  void findMatches_manyWorkersDroppingOutAtDifferentDepths() {
    for (int w = 0; w < 20; w++) {
      int[] blocks = new int[w + 1];
      for (int i = 0; i <= w; i++) {
        blocks[i] = i + 1;
      }
      apply(WorkerRank.of("w" + w), stored(null, blocks));
    }
    long[] prompt = new long[25];
    for (int i = 0; i < prompt.length; i++) {
      prompt[i] = i + 1;
    }

    Map<WorkerRank, Integer> scores = matches(prompt);

    assertThat(scores).hasSize(20);
    for (int w = 0; w < 20; w++) {
      assertThat(scores.get(WorkerRank.of("w" + w))).isEqualTo(w + 1);
    }
  }

  @Test
  void dump_isBreadthFirstSingleBlockStoresNamingTheParentHash() {
    apply(A, stored(null, 1, 2, 3));
    apply(A, stored(1, 4));
    apply(B, stored(null, 1));

    List<RouterEvent> dump = tree.dump();

    assertThat(dump)
        .containsExactly(
            new RouterEvent(A, cleared()),
            new RouterEvent(A, KvCacheEvent.stored(null, block(1))),
            new RouterEvent(A, KvCacheEvent.stored(1001L, block(4))),
            new RouterEvent(A, KvCacheEvent.stored(1001L, block(2))),
            new RouterEvent(A, KvCacheEvent.stored(1002L, block(3))),
            new RouterEvent(B, cleared()),
            new RouterEvent(B, KvCacheEvent.stored(null, block(1))));
  }

  @Test
  void dump_keepsDormantBlocks_byStoringAndRemovingTheirMissingParent() {
    apply(A, stored(null, 1, 2, 3));
    apply(A, removedBlocks(2));

    List<RouterEvent> dump = tree.dump();
    RadixTree rebuilt = new RadixTree();
    dump.forEach(e -> assertThat(rebuilt.apply(e.worker(), e.event())).isEqualTo(Outcome.APPLIED));

    assertThat(dump).last().isEqualTo(new RouterEvent(A, removed(1002)));
    assertThat(rebuilt.heldBlocks()).isEqualTo(tree.heldBlocks());
    rebuilt.apply(A, stored(1, 2));
    assertThat(rebuilt.findMatches(prompt(1, 2, 3)).overlapBlocks()).containsExactly(entry(A, 3));
    TreeInvariants.check(rebuilt);
  }

  @Test
  void dump_ofClearedRank_keepsItKnown() {
    apply(A, stored(null, 1));
    apply(A, cleared());

    RadixTree rebuilt = new RadixTree();
    tree.dump().forEach(e -> rebuilt.apply(e.worker(), e.event()));

    assertThat(rebuilt.cachedBlocks()).containsExactly(entry(A, 0L));
  }
}
