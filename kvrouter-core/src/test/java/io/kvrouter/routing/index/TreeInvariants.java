package io.kvrouter.routing.index;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks every structural invariant of a quiescent {@link RadixTree}; throws on the first breach.
 */
final class TreeInvariants {
  private TreeInvariants() {}

  static void check(RadixTree tree) {
    Node root = tree.root();
    Set<Node> reachable = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    ArrayDeque<Node> queue = new ArrayDeque<>();
    queue.add(root);
    while (!queue.isEmpty()) {
      Node n = queue.poll();
      reachable.add(n);
      for (Node c : n.children()) {
        require(c.parent == n, "child's parent pointer", c);
        require(n.child(c.tokensHash) == c, "child keyed by its local hash", c);
        require(
            c.workers() != WorkerSet.DEAD && c.workers().size() > 0,
            "no empty node in the tree",
            c);
        if (n != root) {
          for (int slot : c.workers().ids()) {
            require(n.workers().contains(slot), "child's workers are a subset of the parent's", c);
          }
        }
        queue.add(c);
      }
    }

    // per node, per slot: how many live blocks sit there
    Map<Node, Map<Integer, Integer>> livePerNode = new IdentityHashMap<>();
    for (var rank : tree.workers()) {
      WorkerBlocks w = tree.worker(rank);
      BlockArena a = w.blocks;
      require(w.rank.equals(rank), "worker keyed by its rank", rank);
      List<Integer> all = new ArrayList<>();
      a.forEach(all::add);
      require(all.size() == a.size(), "table size", rank);
      Set<Long> hashes = new HashSet<>();
      int held = 0;
      for (int b : all) {
        String at = rank + " block " + Long.toUnsignedString(a.hash(b));
        require(b != BlockArena.ROOT, "the sentinel is not in the table", at);
        require(hashes.add(a.hash(b)), "one block per hash", at);
        require(a.find(a.hash(b)) == b, "block found by its hash", at);
        if (w.held(b)) {
          held++;
          int parent = a.parent(b);
          require(
              parent == BlockArena.ROOT || a.find(a.hash(parent)) == parent,
              "parent is in the table",
              at);
          require(containsChild(a, parent, b), "block is among its parent's children", at);
        } else {
          require(a.firstChild(b) != BlockArena.NONE, "a ghost keeps children", at);
        }
        checkChildren(w, b, at);
      }
      checkChildren(w, BlockArena.ROOT, rank + " sentinel");
      require(a.parent(BlockArena.ROOT) == BlockArena.ROOT, "the sentinel is its own parent", rank);
      require(a.node(BlockArena.ROOT) == root, "the sentinel's node is the root", rank);
      require(w.held == held, "held count", rank);
      require(w.cachedBlocks() == held, "published count", rank);
      Map<Integer, Boolean> live = new HashMap<>();
      int outOfTree = 0;
      for (int b : all) {
        outOfTree += a.node(b) == null ? 1 : 0;
        String at = rank + " block " + Long.toUnsignedString(a.hash(b));
        Node node = a.node(b);
        require((node != null) == isLive(w, b, live), "live exactly when held up to the start", at);
        if (node != null) {
          require(node.parent == a.node(a.parent(b)), "node sits under its parent's node", at);
          require(node.tokensHash == a.tokensHash(b), "node keyed by the tokens hash", at);
          require(reachable.contains(node), "a live block's node is in the tree", at);
          livePerNode.computeIfAbsent(node, k -> new HashMap<>()).merge(w.slot, 1, Integer::sum);
        }
      }
      require(
          a.outOfTree() == outOfTree, "a tokens hash kept aside per block out of the tree", rank);
      for (Node n : reachable) {
        int count = livePerNode.getOrDefault(n, Map.of()).getOrDefault(w.slot, 0);
        require(w.extraAt(n) == Math.max(0, count - 1), "extra count per node", n);
      }
    }
    for (Node n : reachable) {
      if (n == root) {
        continue;
      }
      Map<Integer, Integer> live = livePerNode.getOrDefault(n, Map.of());
      require(
          live.keySet().equals(asSet(n.workers().ids())),
          "node's workers are the ranks with a live block there",
          n);
    }
  }

  private static void checkChildren(WorkerBlocks w, int b, String at) {
    BlockArena a = w.blocks;
    for (int c = a.firstChild(b); c != BlockArena.NONE; c = a.nextSibling(c)) {
      require(a.parent(c) == b, "child points back to its parent", at);
      require(w.held(c), "only held blocks are children", at);
      int next = a.nextSibling(c);
      require(next == BlockArena.NONE || a.prevSibling(next) == c, "sibling links", at);
      require(a.find(a.hash(c)) == c, "child is in the table", at);
    }
  }

  private static boolean isLive(WorkerBlocks w, int b, Map<Integer, Boolean> memo) {
    if (b == BlockArena.ROOT) {
      return true;
    }
    Boolean known = memo.get(b);
    if (known != null) {
      return known;
    }
    boolean live = w.held(b) && isLive(w, w.blocks.parent(b), memo);
    memo.put(b, live);
    return live;
  }

  private static boolean containsChild(BlockArena a, int parent, int child) {
    for (int c = a.firstChild(parent); c != BlockArena.NONE; c = a.nextSibling(c)) {
      if (c == child) {
        return true;
      }
    }
    return false;
  }

  private static Set<Integer> asSet(int[] ids) {
    Set<Integer> set = new HashSet<>();
    for (int id : ids) {
      set.add(id);
    }
    return set;
  }

  private static void require(boolean ok, String what, Object where) {
    if (!ok) {
      throw new AssertionError("invariant broken: " + what + " at " + where);
    }
  }
}
