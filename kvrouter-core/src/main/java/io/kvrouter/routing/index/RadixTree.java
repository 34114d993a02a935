package io.kvrouter.routing.index;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.OverlapScores;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The prefix tree of KV blocks cached by every worker rank, with each rank's lookup table from
 * block hash to block (Dynamo's {@code RadixTree}, ai-dynamo/dynamo {@code
 * lib/kv-router/src/radix_tree.rs}). A node is one path of local block hashes from the root and
 * holds the ranks that cache the block there, so a prompt is scored by walking its local hashes
 * from the root.
 *
 * <h2>Events</h2>
 *
 * <ul>
 *   <li>{@code Stored}: the parent is looked up in the rank's own table only; if it is not held the
 *       event is rejected with {@link Outcome#PARENT_BLOCK_NOT_FOUND}. Each block then becomes the
 *       child of the previous one, reusing the child node of that local hash if there is one. A
 *       block hash the rank already has is reused: its block, with every block the rank keeps below
 *       it, moves to the new position (Dynamo re-attaches the looked-up node; this is that rule
 *       without the node ending up under two parents). An event that would make a block its own
 *       ancestor (a hash equal to the parent's, to an ancestor's, or repeated in the event) is
 *       rejected with {@link Outcome#INVALID_BLOCK_SEQUENCE}.
 *   <li>{@code Removed}: each hash the rank does not hold counts as {@link Outcome#BLOCK_NOT_FOUND}
 *       and the rest of the batch still applies. The rank leaves the block's node, and the nodes of
 *       its blocks below it (they stay in its table, dormant, see the notes). A node whose set
 *       empties is dropped with its subtree, which is empty too.
 *   <li>{@code Cleared}: every block of that one rank goes; the rank stays known with 0 blocks.
 *   <li>{@link #removeWorker}: every rank of the worker goes and is forgotten.
 * </ul>
 *
 * Rejected events change nothing: a {@code Stored} event is validated completely before any of it
 * applies, and a {@code Removed} event drops only the hashes it can.
 *
 * <h2>Matching</h2>
 *
 * {@link #findMatches} returns, per rank, the number of consecutive blocks it holds from block 0. A
 * rank counts at a node only if it holds a chain of blocks from the sequence start to it, so a
 * rank's set at a child is always a subset of its set at the parent, and a walk narrows the set of
 * candidates: when the child's set has the same size (and fingerprint, see {@link WorkerSet}) as
 * the candidates nothing dropped out, an O(1) check; otherwise the candidates are intersected with
 * it and those that drop out score the depth reached.
 *
 * <h2>Implementation notes</h2>
 *
 * Each rank's blocks form its own forest ({@link Block}), linked by the rank's hashes as the engine
 * reported them; the tree holds only the blocks reachable from the sequence start. Dynamo keeps a
 * block in the tree after its parent is removed, which breaks the subset property its matching
 * relies on; here such a block turns <em>dormant</em> (kept in the lookup table, out of the tree)
 * and comes back when the engine stores the parent again, which is what the engine's own prefix
 * cache does. Engines evict children before parents, so this costs nothing in the common case.
 * Nodes keep no block hash (Dynamo keeps the first writer's and warns on a mismatch): hashes belong
 * to the rank's blocks, so a dump names each rank's own hashes and rebuilds its table exactly.
 *
 * <p>Threads: all writes for one worker id (every rank of it) must come from one thread at a time;
 * writes for different worker ids may run on different threads at the same time, since they meet
 * only at nodes, which are updated by compare-and-set ({@link Node}). {@link #findMatches} and
 * {@link #cachedBlocks} run on any thread without locks. Writers add a rank to a path top-down and
 * take it away bottom-up, so at every moment each rank's subset property holds. A read racing
 * writers therefore scores each rank between the lowest and the highest score that rank had while
 * the read ran. {@link #dump} and {@link #heldBlocks} read the writers' state and must run on the
 * writer's thread or while it is idle.
 */
final class RadixTree {
  private final Node root = Node.root();
  private final ConcurrentHashMap<WorkerRank, WorkerBlocks> workers = new ConcurrentHashMap<>();

  /** Worker state by slot, for readers to turn slots back into ranks; slots are never reused. */
  private volatile WorkerBlocks[] slots = new WorkerBlocks[16];

  private int nextSlot; // guarded by this

  /** Applies one event of {@code rank}; never throws for a well-formed event. */
  Outcome apply(WorkerRank rank, KvCacheEvent event) {
    WorkerBlocks w = workerFor(rank);
    Outcome outcome;
    if (event instanceof KvCacheEvent.Stored) {
      outcome = store(w, (KvCacheEvent.Stored) event);
    } else if (event instanceof KvCacheEvent.Removed) {
      outcome = remove(w, ((KvCacheEvent.Removed) event).blockHashes());
    } else {
      clear(w);
      outcome = Outcome.APPLIED;
    }
    w.publish();
    return outcome;
  }

  /** Forgets every rank of {@code workerId}. */
  void removeWorker(String workerId) {
    for (WorkerBlocks w : workers.values()) {
      if (w.rank.workerId().equals(workerId)) {
        clear(w);
        w.publish();
        workers.remove(w.rank);
      }
    }
  }

  /** Per rank, the consecutive blocks of {@code localHashes} it holds from block 0. */
  OverlapScores findMatches(long[] localHashes) {
    if (localHashes.length == 0) {
      return OverlapScores.EMPTY;
    }
    Node node = root.child(localHashes[0]);
    if (node == null) {
      return OverlapScores.EMPTY;
    }
    WorkerSet first = node.workers();
    int activeSize = first.size();
    if (activeSize == 0) {
      return OverlapScores.EMPTY;
    }
    Map<WorkerRank, Integer> overlap = new HashMap<>(activeSize * 2);
    Map<WorkerRank, Long> cached = new HashMap<>(activeSize * 2);
    int[] active = first.ids();
    boolean owned = false;
    long activeFingerprint = first.fingerprint();
    int depth = 1;
    for (int i = 1; i < localHashes.length; i++) {
      Node next = node.child(localHashes[i]);
      if (next == null) {
        break;
      }
      WorkerSet set = next.workers();
      if (set.size() != activeSize || set.fingerprint() != activeFingerprint) {
        if (!owned) {
          active = Arrays.copyOf(active, activeSize);
          owned = true;
        }
        int[] members = set.ids();
        int kept = 0;
        int j = 0;
        long fingerprint = 0;
        for (int k = 0; k < activeSize; k++) {
          int slot = active[k];
          while (j < members.length && members[j] < slot) {
            j++;
          }
          if (j < members.length && members[j] == slot) {
            active[kept++] = slot;
            fingerprint += WorkerSet.mix(slot);
          } else {
            record(slot, depth, overlap, cached);
          }
        }
        activeSize = kept;
        activeFingerprint = fingerprint;
        if (activeSize == 0) {
          break;
        }
      }
      node = next;
      depth = i + 1;
    }
    for (int k = 0; k < activeSize; k++) {
      record(active[k], depth, overlap, cached);
    }
    return new OverlapScores(overlap, cached);
  }

  private void record(
      int slot, int depth, Map<WorkerRank, Integer> overlap, Map<WorkerRank, Long> cached) {
    // a slot seen in a node was registered before the node was published, so it is in slots
    WorkerBlocks w = slots[slot];
    overlap.put(w.rank, depth);
    cached.put(w.rank, w.cachedBlocks());
  }

  /** Blocks held by each known rank, including ranks that hold none after {@code Cleared}. */
  Map<WorkerRank, Long> cachedBlocks() {
    Map<WorkerRank, Long> counts = new HashMap<>();
    for (WorkerBlocks w : workers.values()) {
      counts.put(w.rank, w.cachedBlocks());
    }
    return counts;
  }

  /** Every rank that sent an event since it was last removed. */
  Set<WorkerRank> workers() {
    return Collections.unmodifiableSet(workers.keySet());
  }

  /** Events that rebuild the state of every rank. */
  List<RouterEvent> dump() {
    return dump(rank -> true);
  }

  /**
   * Events that rebuild the state of the ranks {@code include} accepts, applied to any tree: per
   * rank, {@code Cleared}; then one single-block {@code Stored} per held block, breadth-first from
   * the sequence start, each naming its parent by the rank's own hash; then, if the rank keeps
   * blocks whose parent it removed, those parents stored with their subtrees and removed again in
   * one closing {@code Removed}.
   */
  List<RouterEvent> dump(Predicate<WorkerRank> include) {
    List<WorkerBlocks> selected = new ArrayList<>();
    for (WorkerBlocks w : workers.values()) {
      if (include.test(w.rank)) {
        selected.add(w);
      }
    }
    selected.sort(
        Comparator.comparing((WorkerBlocks w) -> w.rank.workerId())
            .thenComparingInt(w -> w.rank.dpRank()));
    List<RouterEvent> events = new ArrayList<>();
    for (WorkerBlocks w : selected) {
      dumpWorker(w, events);
    }
    return events;
  }

  private static void dumpWorker(WorkerBlocks w, List<RouterEvent> out) {
    out.add(new RouterEvent(w.rank, KvCacheEvent.cleared()));
    ArrayDeque<Block> queue = new ArrayDeque<>();
    for (Block c = w.root.firstChild; c != null; c = c.nextSibling) {
      queue.add(c);
    }
    storeBreadthFirst(w, queue, out);
    List<Block> ghosts = new ArrayList<>();
    w.blocks.forEach(
        b -> {
          if (!b.held()) {
            ghosts.add(b);
          }
        });
    if (ghosts.isEmpty()) {
      return;
    }
    ghosts.sort(Comparator.comparingLong(b -> b.hash));
    queue.addAll(ghosts);
    storeBreadthFirst(w, queue, out);
    long[] hashes = new long[ghosts.size()];
    for (int i = 0; i < hashes.length; i++) {
      hashes[i] = ghosts.get(i).hash;
    }
    out.add(new RouterEvent(w.rank, KvCacheEvent.removed(hashes)));
  }

  private static void storeBreadthFirst(
      WorkerBlocks w, ArrayDeque<Block> queue, List<RouterEvent> out) {
    while (!queue.isEmpty()) {
      Block b = queue.poll();
      Long parent = b.parent == null || b.parent == w.root ? null : b.parent.hash;
      out.add(
          new RouterEvent(
              w.rank, KvCacheEvent.stored(parent, new StoredBlock(b.hash, b.tokensHash))));
      for (Block c = b.firstChild; c != null; c = c.nextSibling) {
        queue.add(c);
      }
    }
  }

  /** A held block as the engine reported it: parent hash ({@code null} at the start) and tokens. */
  record HeldBlock(Long parentHash, long tokensHash) {}

  /** Per known rank, its held blocks by hash: the whole state, for comparisons in tests. */
  Map<WorkerRank, Map<Long, HeldBlock>> heldBlocks() {
    Map<WorkerRank, Map<Long, HeldBlock>> all = new HashMap<>();
    for (WorkerBlocks w : workers.values()) {
      Map<Long, HeldBlock> held = new HashMap<>();
      w.blocks.forEach(
          b -> {
            if (b.held()) {
              held.put(
                  b.hash, new HeldBlock(b.parent == w.root ? null : b.parent.hash, b.tokensHash));
            }
          });
      all.put(w.rank, held);
    }
    return all;
  }

  Node root() {
    return root;
  }

  WorkerBlocks worker(WorkerRank rank) {
    return workers.get(rank);
  }

  // ---- writes -------------------------------------------------------------------------------

  private WorkerBlocks workerFor(WorkerRank rank) {
    WorkerBlocks w = workers.get(rank);
    if (w == null) {
      w = register(rank);
      workers.put(rank, w);
    }
    return w;
  }

  private synchronized WorkerBlocks register(WorkerRank rank) {
    int slot = nextSlot++;
    WorkerBlocks w = new WorkerBlocks(rank, slot, root);
    WorkerBlocks[] current = slots;
    WorkerBlocks[] next =
        slot < current.length ? current : Arrays.copyOf(current, current.length * 2);
    next[slot] = w;
    slots = next;
    return w;
  }

  private Outcome store(WorkerBlocks w, KvCacheEvent.Stored event) {
    Block start;
    if (event.parentBlockHash() == null) {
      start = w.root;
    } else {
      start = w.blocks.get(event.parentBlockHash());
      if (start == null || !start.held()) {
        return Outcome.PARENT_BLOCK_NOT_FOUND;
      }
    }
    List<StoredBlock> blocks = event.blocks();
    if (!acyclic(w, start, blocks)) {
      return Outcome.INVALID_BLOCK_SEQUENCE;
    }
    Block cur = start;
    for (StoredBlock b : blocks) {
      cur = storeBlock(w, cur, b.blockHash(), b.tokensHash());
    }
    return Outcome.APPLIED;
  }

  /**
   * Whether storing {@code blocks} below {@code start} keeps the rank's blocks a forest: no hash
   * repeats within the event, and no hash the rank already has is {@code start} or above it.
   */
  private static boolean acyclic(WorkerBlocks w, Block start, List<StoredBlock> blocks) {
    if (hasRepeatedHash(blocks)) {
      return false;
    }
    Set<Block> above = null;
    Block previous = start;
    for (StoredBlock b : blocks) {
      Block existing = w.blocks.get(b.blockHash());
      // a block already below the previous one cannot be above start
      if (existing != null && (previous == null || existing.parent != previous)) {
        if (above == null) {
          above = Collections.newSetFromMap(new IdentityHashMap<>());
          for (Block a = start; a != null && a != w.root; a = a.parent) {
            above.add(a);
          }
        }
        if (above.contains(existing)) {
          return false;
        }
      }
      previous = existing;
    }
    return true;
  }

  private static boolean hasRepeatedHash(List<StoredBlock> blocks) {
    int n = blocks.size();
    if (n < 2) {
      return false;
    }
    long[] hashes = new long[n];
    for (int i = 0; i < n; i++) {
      hashes[i] = blocks.get(i).blockHash();
    }
    Arrays.sort(hashes);
    for (int i = 1; i < n; i++) {
      if (hashes[i] == hashes[i - 1]) {
        return true;
      }
    }
    return false;
  }

  private Block storeBlock(WorkerBlocks w, Block parent, long hash, long tokensHash) {
    Block b = w.blocks.get(hash);
    if (b == null) {
      b = new Block(hash, tokensHash);
      w.link(parent, b);
      w.blocks.put(b);
      w.held++;
      if (parent.node != null) {
        b.node = attach(parent.node, tokensHash, w);
      }
      return b;
    }
    if (b.held() && b.parent == parent && b.tokensHash == tokensHash) {
      return b;
    }
    // a ghost stored again, or a held block at a new position: it moves here with its subtree
    if (b.node != null) {
      takeOut(w, b);
    }
    Block oldParent = b.parent; // null for a ghost
    if (oldParent != null) {
      w.unlink(b);
    } else {
      w.held++;
    }
    b.tokensHash = tokensHash;
    w.link(parent, b);
    if (oldParent != null) {
      w.pruneIfGhost(oldParent);
    }
    if (parent.node != null) {
      putIn(w, b);
    }
    return b;
  }

  private Outcome remove(WorkerBlocks w, List<Long> hashes) {
    Outcome outcome = Outcome.APPLIED;
    for (long hash : hashes) {
      Block b = w.blocks.get(hash);
      if (b == null || !b.held()) {
        outcome = Outcome.BLOCK_NOT_FOUND;
        continue;
      }
      if (b.node != null) {
        takeOut(w, b);
      }
      w.held--;
      Block parent = b.parent;
      w.unlink(b); // no parent: a ghost, if it stays for its children
      if (b.firstChild == null) {
        w.blocks.remove(hash);
      }
      w.pruneIfGhost(parent);
    }
    return outcome;
  }

  private void clear(WorkerBlocks w) {
    for (Block c = w.root.firstChild; c != null; c = c.nextSibling) {
      takeOut(w, c);
    }
    w.reset();
  }

  /** Puts {@code top} (whose parent is live) and every held block below it into the tree. */
  private void putIn(WorkerBlocks w, Block top) {
    ArrayDeque<Block> stack = new ArrayDeque<>();
    stack.push(top);
    while (!stack.isEmpty()) {
      Block b = stack.pop();
      b.node = attach(b.parent.node, b.tokensHash, w);
      for (Block c = b.firstChild; c != null; c = c.nextSibling) {
        if (c.held()) {
          stack.push(c);
        }
      }
    }
  }

  /** Takes the live {@code top} and every live block below it out of the tree, deepest first. */
  private void takeOut(WorkerBlocks w, Block top) {
    if (top.firstChild == null) {
      detach(top.node, w);
      top.node = null;
      return;
    }
    List<Block> preorder = new ArrayList<>();
    ArrayDeque<Block> stack = new ArrayDeque<>();
    stack.push(top);
    while (!stack.isEmpty()) {
      Block b = stack.pop();
      preorder.add(b);
      for (Block c = b.firstChild; c != null; c = c.nextSibling) {
        if (c.node != null) {
          stack.push(c);
        }
      }
    }
    for (int i = preorder.size() - 1; i >= 0; i--) {
      Block b = preorder.get(i);
      detach(b.node, w);
      b.node = null;
    }
  }

  /** Adds the rank to the child of {@code parent} at {@code tokensHash}, creating it if needed. */
  private static Node attach(Node parent, long tokensHash, WorkerBlocks w) {
    while (true) {
      Node child = parent.child(tokensHash);
      if (child == null) {
        Node fresh = new Node(parent, tokensHash, w.alone);
        if (parent.insertIfAbsent(fresh) == null) {
          return fresh;
        }
        continue;
      }
      WorkerSet set = child.workers();
      if (set == WorkerSet.DEAD) {
        parent.removeChild(child); // its last worker is still unlinking it; help
        continue;
      }
      if (set.contains(w.slot)) {
        w.addExtra(child);
        return child;
      }
      if (child.casWorkers(set, set.with(w.slot))) {
        return child;
      }
    }
  }

  /** Takes the rank out of {@code node}; the last one out drops the node from the tree. */
  private static void detach(Node node, WorkerBlocks w) {
    if (w.removeExtra(node)) {
      return;
    }
    while (true) {
      WorkerSet set = node.workers();
      WorkerSet next = set.without(w.slot);
      if (next.size() == 0) {
        if (node.casWorkers(set, WorkerSet.DEAD)) {
          node.parent.removeChild(node);
          return;
        }
      } else if (node.casWorkers(set, next)) {
        return;
      }
    }
  }
}
