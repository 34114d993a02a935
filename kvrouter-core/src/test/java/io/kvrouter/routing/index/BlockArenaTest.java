package io.kvrouter.routing.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The arena against a model: a HashMap from hash to the fields last written for that block, under
 * adds and removes whose hashes collide in the table, blocks going in and out of the tree, page
 * growth and slot reuse.
 */
class BlockArenaTest {

  /** What the model expects of one block. */
  private record Fields(
      int slot, long tokensHash, boolean live, int parent, int child, int prev, int next) {}

  private static final Gen.Ints OPS = new Gen.Ints(-64, 64);

  static List<Long> ops(SplittableRandom random, int genSize) {
    return Gen.longs(random, new Gen.Sizes(0, 300, genSize), OPS);
  }

  /**
   * Positive keys add a block (in the tree when the op is even) or, when present, rewrite its links
   * and move it into or out of the tree; negative keys remove it.
   */
  @Test
  void addsMovesAndRemoves_matchTheModel() {
    Tries.forAll(300, BlockArenaTest::ops, BlockArenaTest::matchesModel);
  }

  private static void matchesModel(List<Long> ops) {
    BlockArena arena = new BlockArena(Node.root());
    Map<Long, Fields> model = new HashMap<>();
    Map<Integer, Long> slotOwners = new HashMap<>();
    int i = 0;
    for (long op : ops) {
      long hash = Math.abs(op) * 0x10000; // many hashes share low bits
      if (op >= 0) {
        Fields f;
        int slot = arena.find(hash);
        if (slot == BlockArena.NONE) {
          boolean live = op % 2 == 0;
          slot = arena.add(hash, i, live ? node(i) : null);
          assertThat(slot).isNotEqualTo(BlockArena.ROOT);
          assertThat(slotOwners.put(slot, hash)).as("slot handed out twice").isNull();
          assertThat(arena.parent(slot)).isEqualTo(BlockArena.NONE);
          assertThat(arena.firstChild(slot)).isEqualTo(BlockArena.NONE);
          f = new Fields(slot, i, live, i + 1, i + 2, i + 3, i + 4);
        } else if (arena.node(slot) != null) {
          arena.setNode(slot, null); // out, keeping its tokens hash
          f = new Fields(slot, model.get(hash).tokensHash(), false, i + 1, i + 2, i + 3, i + 4);
        } else {
          arena.setTokensHash(slot, i); // stored again elsewhere, then in
          arena.setNode(slot, node(i));
          f = new Fields(slot, i, true, i + 1, i + 2, i + 3, i + 4);
        }
        writeLinks(arena, f);
        model.put(hash, f);
        i++;
      } else {
        Fields f = model.remove(hash);
        assertThat(arena.find(hash)).isEqualTo(f == null ? BlockArena.NONE : f.slot());
        if (f != null) {
          arena.remove(f.slot());
          slotOwners.remove(f.slot());
        }
      }
      assertThat(arena.size()).isEqualTo(model.size());
      assertThat(arena.outOfTree())
          .isEqualTo(model.values().stream().filter(f -> !f.live()).count());
    }
    for (long k = 0; k <= 64; k++) {
      long hash = k * 0x10000;
      Fields f = model.get(hash);
      int slot = arena.find(hash);
      assertThat(slot).isEqualTo(f == null ? BlockArena.NONE : f.slot());
      if (f != null) {
        assertThat(read(arena, slot, hash)).isEqualTo(f);
      }
    }
    List<Integer> slots = new ArrayList<>();
    arena.forEach(slots::add);
    assertThat(slots).containsExactlyInAnyOrderElementsOf(slotOwners.keySet());
  }

  @Test
  void keepsEveryFieldThroughPagesAndReusesFreedSlots() {
    BlockArena arena = new BlockArena(Node.root());
    int n = 5_000; // several pages
    int[] slots = new int[n];
    for (int k = 0; k < n; k++) {
      slots[k] = arena.add(k * 7919L, -k, k % 3 == 0 ? node(-k) : null);
      writeLinks(arena, new Fields(slots[k], -k, k % 3 == 0, k, k + 1, k + 2, k + 3));
    }
    for (int k = 0; k < n; k++) {
      assertThat(read(arena, slots[k], k * 7919L))
          .isEqualTo(new Fields(slots[k], -k, k % 3 == 0, k, k + 1, k + 2, k + 3));
    }
    for (int k = 0; k < n; k += 2) {
      arena.remove(slots[k]);
    }
    assertThat(arena.size()).isEqualTo(n / 2);
    for (int k = 0; k < n; k += 2) {
      int again = arena.add(k * 7919L + 1, 7, null);
      assertThat(again).as("a freed slot is reused").isLessThanOrEqualTo(n);
      assertThat(arena.node(again)).as("a reused slot starts out of the tree").isNull();
      assertThat(arena.tokensHash(again)).isEqualTo(7);
      assertThat(arena.nextSibling(again)).isEqualTo(BlockArena.NONE);
    }
    for (int k = 1; k < n; k += 2) {
      assertThat(arena.find(k * 7919L)).isEqualTo(slots[k]);
      assertThat(arena.tokensHash(slots[k])).isEqualTo(-k);
    }
    arena.clear();
    assertThat(arena.size()).isZero();
    assertThat(arena.outOfTree()).isZero();
    assertThat(arena.find(7919L)).isEqualTo(BlockArena.NONE);
    assertThat(arena.parent(BlockArena.ROOT)).isEqualTo(BlockArena.ROOT);
    assertThat(arena.firstChild(BlockArena.ROOT)).isEqualTo(BlockArena.NONE);
  }

  @Test
  void aLiveBlocksTokensHashIsItsNodes() {
    BlockArena arena = new BlockArena(Node.root());
    int slot = arena.add(1, 5, node(5));

    assertThatThrownBy(() -> arena.setTokensHash(slot, 6))
        .isInstanceOf(IllegalStateException.class);
    arena.setNode(slot, null);
    arena.setTokensHash(slot, 6);
    assertThatThrownBy(() -> arena.setNode(slot, node(5)))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> arena.add(2, 5, node(6))).isInstanceOf(IllegalStateException.class);
  }

  private static Node node(long tokensHash) {
    return new Node(Node.root(), tokensHash, WorkerSet.of(0));
  }

  private static void writeLinks(BlockArena arena, Fields f) {
    arena.setParent(f.slot(), f.parent());
    arena.setFirstChild(f.slot(), f.child());
    arena.setPrevSibling(f.slot(), f.prev());
    arena.setNextSibling(f.slot(), f.next());
  }

  private static Fields read(BlockArena arena, int slot, long hash) {
    assertThat(arena.hash(slot)).isEqualTo(hash);
    return new Fields(
        slot,
        arena.tokensHash(slot),
        arena.node(slot) != null,
        arena.parent(slot),
        arena.firstChild(slot),
        arena.prevSibling(slot),
        arena.nextSibling(slot));
  }
}
