package io.kvrouter.routing.index;

import io.kvrouter.protocol.WorkerRank;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.HashMap;
import java.util.Map;

/**
 * Everything the tree knows about one worker rank: its blocks ({@link BlockArena}, with the table
 * from block hash to block that is Dynamo's per-worker {@code lookup}) and its slot in the tree's
 * worker sets. Confined to the rank's writer thread, except {@link #rank}, {@link #slot} and {@link
 * #cachedBlocks()}, which readers use.
 *
 * <p>Each block is the rank's own view, linked to its parent block by the rank's own hashes. A
 * block is <em>held</em> while the engine has reported it stored and not removed: exactly while it
 * has a parent (the root sentinel is its own). A removed block that still has held children stays
 * behind as a <em>ghost</em> (not held, no parent) so that the children keep their link by hash:
 * the engine may store that block again, and then its children are reachable again. A held block is
 * <em>live</em> (sits in the tree, with a node) when every block up to the sequence start is held;
 * otherwise it is <em>dormant</em>.
 */
final class WorkerBlocks {
  private static final VarHandle CACHED;

  static {
    try {
      CACHED = MethodHandles.lookup().findVarHandle(WorkerBlocks.class, "cached", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final WorkerRank rank;
  final int slot;

  /** The set holding only this worker, shared by every node it alone caches. */
  final WorkerSet alone;

  /** The rank's blocks; {@link BlockArena#ROOT}'s node is the tree's root. */
  final BlockArena blocks;

  /** Held blocks; published to readers through {@link #cached} after each change. */
  int held;

  /**
   * The set this writer last put into a node. Nodes along one path usually hold the same ranks, so
   * the next node it changes most often needs that same set, and shares it rather than a copy.
   */
  private WorkerSet lastSet;

  /**
   * For nodes where more than one live block of this worker sits (two block hashes with the same
   * parent and tokens), how many beyond the first; the worker leaves the node only with the last.
   */
  private Map<Node, Integer> extraAtNode;

  @SuppressWarnings("unused") // accessed through CACHED
  private volatile long cached;

  WorkerBlocks(WorkerRank rank, int slot, Node treeRoot) {
    this.rank = rank;
    this.slot = slot;
    this.alone = WorkerSet.of(slot);
    this.blocks = new BlockArena(treeRoot);
  }

  /** Blocks held, as last published by the writer; safe from any thread. */
  long cachedBlocks() {
    return (long) CACHED.getAcquire(this);
  }

  void publish() {
    CACHED.setRelease(this, (long) held);
  }

  /** Whether the engine holds {@code block} (stored and not removed since): it has a parent. */
  boolean held(int block) {
    return blocks.parent(block) != BlockArena.NONE;
  }

  void link(int parent, int child) {
    BlockArena a = blocks;
    int first = a.firstChild(parent);
    a.setParent(child, parent);
    a.setPrevSibling(child, BlockArena.NONE);
    a.setNextSibling(child, first);
    if (first != BlockArena.NONE) {
      a.setPrevSibling(first, child);
    }
    a.setFirstChild(parent, child);
  }

  /** Takes {@code child} from its parent's children; it is left without a parent (a ghost). */
  void unlink(int child) {
    BlockArena a = blocks;
    int prev = a.prevSibling(child);
    int next = a.nextSibling(child);
    if (prev != BlockArena.NONE) {
      a.setNextSibling(prev, next);
    } else {
      a.setFirstChild(a.parent(child), next);
    }
    if (next != BlockArena.NONE) {
      a.setPrevSibling(next, prev);
    }
    a.setParent(child, BlockArena.NONE);
    a.setPrevSibling(child, BlockArena.NONE);
    a.setNextSibling(child, BlockArena.NONE);
  }

  /** Forgets {@code block} if it is a ghost that no longer has children to keep. */
  void pruneIfGhost(int block) {
    if (!held(block) && blocks.firstChild(block) == BlockArena.NONE) {
      blocks.remove(block);
    }
  }

  /** {@code set} with this worker added, shared with the last set this writer made if equal. */
  WorkerSet with(WorkerSet set) {
    WorkerSet last = lastSet;
    if (last != null && last.isWith(set, slot)) {
      return last;
    }
    lastSet = set.with(slot);
    return lastSet;
  }

  /** {@code set} without this worker, shared with the last set this writer made if equal. */
  WorkerSet without(WorkerSet set) {
    WorkerSet last = lastSet;
    if (last != null && set.isWith(last, slot)) {
      return last;
    }
    lastSet = set.without(slot);
    return lastSet;
  }

  void addExtra(Node node) {
    if (extraAtNode == null) {
      extraAtNode = new HashMap<>();
    }
    extraAtNode.merge(node, 1, Integer::sum);
  }

  /** Consumes one extra block at {@code node}; false when the leaving block was the last one. */
  boolean removeExtra(Node node) {
    if (extraAtNode == null) {
      return false;
    }
    Integer extra = extraAtNode.get(node);
    if (extra == null) {
      return false;
    }
    if (extra == 1) {
      extraAtNode.remove(node);
    } else {
      extraAtNode.put(node, extra - 1);
    }
    return true;
  }

  int extraAt(Node node) {
    Integer extra = extraAtNode == null ? null : extraAtNode.get(node);
    return extra == null ? 0 : extra;
  }

  /** Drops every block; the caller has already taken them out of the tree. */
  void reset() {
    blocks.clear();
    extraAtNode = null;
    lastSet = null;
    held = 0;
  }
}
