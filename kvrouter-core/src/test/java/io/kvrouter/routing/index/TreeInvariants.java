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
      require(w.rank.equals(rank), "worker keyed by its rank", rank);
      Map<Block, Boolean> live = new IdentityHashMap<>();
      List<Block> all = new ArrayList<>();
      w.blocks.forEach(all::add);
      require(all.size() == w.blocks.size(), "map size", rank);
      Set<Long> hashes = new HashSet<>();
      int held = 0;
      for (Block b : all) {
        require(hashes.add(b.hash), "one block per hash", b);
        require(w.blocks.get(b.hash) == b, "block keyed by its hash", b);
        if (b.held()) {
          held++;
          require(b.parent != null, "a held block has a parent", b);
          require(
              b.parent == w.root || w.blocks.get(b.parent.hash) == b.parent,
              "parent is in the map",
              b);
          require(containsChild(b.parent, b), "block is among its parent's children", b);
        } else {
          require(b.parent == null, "a ghost has no parent", b);
          require(b.firstChild != null, "a ghost keeps children", b);
        }
        for (Block c = b.firstChild; c != null; c = c.nextSibling) {
          require(c.parent == b, "child points back to its parent", c);
          require(c.held(), "only held blocks are children", c);
          require(c.nextSibling == null || c.nextSibling.prevSibling == c, "sibling links", c);
          require(w.blocks.get(c.hash) == c, "child is in the map", c);
        }
      }
      for (Block c = w.root.firstChild; c != null; c = c.nextSibling) {
        require(c.parent == w.root && c.held(), "first blocks hang from the root sentinel", c);
        require(w.blocks.get(c.hash) == c, "first block is in the map", c);
      }
      require(w.root.parent == w.root, "the root sentinel is its own parent", rank);
      require(w.held == held, "held count", rank);
      require(w.cachedBlocks() == held, "published count", rank);
      for (Block b : all) {
        boolean expected = isLive(w, b, live);
        require(
            (b.node != null) == expected,
            "live exactly when every block up to the start is held",
            b);
        if (b.node != null) {
          Node parentNode = b.parent == w.root ? root : b.parent.node;
          require(b.node.parent == parentNode, "block's node sits under its parent's node", b);
          require(b.node.tokensHash == b.tokensHash, "block's node is keyed by its tokens hash", b);
          require(reachable.contains(b.node), "a live block's node is in the tree", b);
          livePerNode.computeIfAbsent(b.node, k -> new HashMap<>()).merge(w.slot, 1, Integer::sum);
        }
      }
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

  private static boolean isLive(WorkerBlocks w, Block b, Map<Block, Boolean> memo) {
    if (b == w.root) {
      return true;
    }
    Boolean known = memo.get(b);
    if (known != null) {
      return known;
    }
    boolean live = b.held() && isLive(w, b.parent, memo);
    memo.put(b, live);
    return live;
  }

  private static boolean containsChild(Block parent, Block child) {
    for (Block c = parent.firstChild; c != null; c = c.nextSibling) {
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
