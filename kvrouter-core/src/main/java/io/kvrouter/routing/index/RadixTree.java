package io.kvrouter.routing.index;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.OverlapScores;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
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
 * Each rank's blocks form its own forest ({@link WorkerBlocks}, {@link BlockArena}), linked by the
 * rank's hashes as the engine reported them; the tree holds only the blocks reachable from the
 * sequence start. Dynamo keeps a block in the tree after its parent is removed, which breaks the
 * subset property its matching relies on; here such a block turns <em>dormant</em> (kept in the
 * lookup table, out of the tree) and comes back when the engine stores the parent again, which is
 * what the engine's own prefix cache does. Engines evict children before parents, so this costs
 * nothing in the common case. Nodes keep no block hash (Dynamo keeps the first writer's and warns
 * on a mismatch): hashes belong to the rank's blocks, so a dump names each rank's own hashes and
 * rebuilds its table exactly.
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
    BlockArena a = w.blocks;
    IntStack queue = new IntStack();
    for (int c = a.firstChild(BlockArena.ROOT); c != BlockArena.NONE; c = a.nextSibling(c)) {
      queue.push(c);
    }
    storeBreadthFirst(w, queue, out);
    IntStack ghosts = new IntStack();
    a.forEach(
        b -> {
          if (!w.held(b)) {
            ghosts.push(b);
          }
        });
    if (ghosts.size() == 0) {
      return;
    }
    long[] hashes = new long[ghosts.size()];
    for (int i = 0; i < hashes.length; i++) {
      hashes[i] = a.hash(ghosts.get(i));
    }
    Arrays.sort(hashes);
    for (long hash : hashes) {
      queue.push(a.find(hash));
    }
    storeBreadthFirst(w, queue, out);
    out.add(new RouterEvent(w.rank, KvCacheEvent.removed(hashes)));
  }

  /** One single-block {@code Stored} per block of {@code queue} and below, breadth-first. */
  private static void storeBreadthFirst(WorkerBlocks w, IntStack queue, List<RouterEvent> out) {
    BlockArena a = w.blocks;
    for (int i = 0; i < queue.size(); i++) {
      int b = queue.get(i);
      int parent = a.parent(b);
      Long parentHash =
          parent == BlockArena.NONE || parent == BlockArena.ROOT ? null : a.hash(parent);
      out.add(
          new RouterEvent(
              w.rank,
              KvCacheEvent.stored(parentHash, new StoredBlock(a.hash(b), a.tokensHash(b)))));
      for (int c = a.firstChild(b); c != BlockArena.NONE; c = a.nextSibling(c)) {
        queue.push(c);
      }
    }
    queue.clear();
  }

  /** A held block as the engine reported it: parent hash ({@code null} at the start) and tokens. */
  record HeldBlock(Long parentHash, long tokensHash) {}

  /** Per known rank, its held blocks by hash: the whole state, for comparisons in tests. */
  Map<WorkerRank, Map<Long, HeldBlock>> heldBlocks() {
    Map<WorkerRank, Map<Long, HeldBlock>> all = new HashMap<>();
    for (WorkerBlocks w : workers.values()) {
      BlockArena a = w.blocks;
      Map<Long, HeldBlock> held = new HashMap<>();
      a.forEach(
          b -> {
            int parent = a.parent(b);
            if (parent != BlockArena.NONE) {
              held.put(
                  a.hash(b),
                  new HeldBlock(
                      parent == BlockArena.ROOT ? null : a.hash(parent), a.tokensHash(b)));
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
    int start;
    if (event.parentBlockHash() == null) {
      start = BlockArena.ROOT;
    } else {
      start = w.blocks.find(event.parentBlockHash());
      if (start == BlockArena.NONE || !w.held(start)) {
        return Outcome.PARENT_BLOCK_NOT_FOUND;
      }
    }
    List<StoredBlock> blocks = event.blocks();
    if (!acyclic(w, start, blocks)) {
      return Outcome.INVALID_BLOCK_SEQUENCE;
    }
    int cur = start;
    for (StoredBlock b : blocks) {
      cur = storeBlock(w, cur, b.blockHash(), b.tokensHash());
    }
    return Outcome.APPLIED;
  }

  /**
   * Whether storing {@code blocks} below {@code start} keeps the rank's blocks a forest: no hash
   * repeats within the event, and no hash the rank already has is {@code start} or above it.
   */
  private static boolean acyclic(WorkerBlocks w, int start, List<StoredBlock> blocks) {
    if (hasRepeatedHash(blocks)) {
      return false;
    }
    BlockArena a = w.blocks;
    Set<Integer> above = null;
    int previous = start;
    for (StoredBlock b : blocks) {
      int existing = a.find(b.blockHash());
      // a block already below the previous one cannot be above start
      if (existing != BlockArena.NONE
          && (previous == BlockArena.NONE || a.parent(existing) != previous)) {
        if (above == null) {
          above = new HashSet<>();
          for (int up = start; up != BlockArena.NONE && up != BlockArena.ROOT; up = a.parent(up)) {
            above.add(up);
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

  private int storeBlock(WorkerBlocks w, int parent, long hash, long tokensHash) {
    BlockArena a = w.blocks;
    int b = a.find(hash);
    if (b == BlockArena.NONE) {
      Node parentNode = a.node(parent);
      b = a.add(hash, tokensHash, parentNode == null ? null : attach(parentNode, tokensHash, w));
      w.link(parent, b);
      w.held++;
      return b;
    }
    int oldParent = a.parent(b); // NONE for a ghost
    if (oldParent == parent && a.tokensHash(b) == tokensHash) {
      return b;
    }
    // a ghost stored again, or a held block at a new position: it moves here with its subtree
    if (a.node(b) != null) {
      takeOut(w, b);
    }
    if (oldParent != BlockArena.NONE) {
      w.unlink(b);
    } else {
      w.held++;
    }
    a.setTokensHash(b, tokensHash);
    w.link(parent, b);
    if (oldParent != BlockArena.NONE) {
      w.pruneIfGhost(oldParent);
    }
    if (a.node(parent) != null) {
      putIn(w, b);
    }
    return b;
  }

  private Outcome remove(WorkerBlocks w, List<Long> hashes) {
    BlockArena a = w.blocks;
    Outcome outcome = Outcome.APPLIED;
    for (long hash : hashes) {
      int b = a.find(hash);
      if (b == BlockArena.NONE || !w.held(b)) {
        outcome = Outcome.BLOCK_NOT_FOUND;
        continue;
      }
      if (a.node(b) != null) {
        takeOut(w, b);
      }
      w.held--;
      int parent = a.parent(b);
      w.unlink(b); // no parent: a ghost, if it stays for its children
      if (a.firstChild(b) == BlockArena.NONE) {
        a.remove(b);
      }
      w.pruneIfGhost(parent); // never the sentinel: it is its own parent, so held
    }
    return outcome;
  }

  private void clear(WorkerBlocks w) {
    BlockArena a = w.blocks;
    for (int c = a.firstChild(BlockArena.ROOT); c != BlockArena.NONE; c = a.nextSibling(c)) {
      takeOut(w, c);
    }
    w.reset();
  }

  /** Puts {@code top} (whose parent is live) and every held block below it into the tree. */
  private void putIn(WorkerBlocks w, int top) {
    BlockArena a = w.blocks;
    IntStack stack = new IntStack();
    stack.push(top);
    while (stack.size() > 0) {
      int b = stack.pop();
      a.setNode(b, attach(a.node(a.parent(b)), a.tokensHash(b), w));
      for (int c = a.firstChild(b); c != BlockArena.NONE; c = a.nextSibling(c)) {
        stack.push(c); // children are held
      }
    }
  }

  /** Takes the live {@code top} and every live block below it out of the tree, deepest first. */
  private void takeOut(WorkerBlocks w, int top) {
    BlockArena a = w.blocks;
    if (a.firstChild(top) == BlockArena.NONE) {
      detach(a.node(top), w);
      a.setNode(top, null);
      return;
    }
    IntStack preorder = new IntStack();
    preorder.push(top);
    for (int i = 0; i < preorder.size(); i++) {
      for (int c = a.firstChild(preorder.get(i)); c != BlockArena.NONE; c = a.nextSibling(c)) {
        if (a.node(c) != null) {
          preorder.push(c);
        }
      }
    }
    for (int i = preorder.size() - 1; i >= 0; i--) {
      int b = preorder.get(i);
      detach(a.node(b), w);
      a.setNode(b, null);
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
      if (child.casWorkers(set, w.with(set))) {
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
      WorkerSet next = w.without(set);
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

  /** A growable stack (and queue, read by index) of block slots. */
  private static final class IntStack {
    private int[] items = new int[16];
    private int size;

    void push(int item) {
      if (size == items.length) {
        items = Arrays.copyOf(items, size * 2);
      }
      items[size++] = item;
    }

    int pop() {
      return items[--size];
    }

    int get(int i) {
      return items[i];
    }

    int size() {
      return size;
    }

    void clear() {
      size = 0;
    }
  }
}
