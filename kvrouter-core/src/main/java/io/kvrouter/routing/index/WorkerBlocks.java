package io.kvrouter.routing.index;

import io.kvrouter.protocol.WorkerRank;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.HashMap;
import java.util.Map;

/**
 * Everything the tree knows about one worker rank: its lookup table from block hash to {@link
 * Block} (Dynamo's per-worker {@code lookup}), its root sentinel, and its slot in the tree's worker
 * sets. Confined to the rank's writer thread, except {@link #rank}, {@link #slot} and {@link
 * #cachedBlocks()}, which readers use.
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

  /** Parent of the worker's first blocks; its node is the tree's root. */
  final Block root;

  final LongKeyTable<Block> blocks = new LongKeyTable<>(b -> b.hash);

  /** Held blocks; published to readers through {@link #cached} after each change. */
  int held;

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
    this.root = new Block(0, 0);
    this.root.parent = root; // its own parent: held, and never a ghost
    this.root.node = treeRoot;
  }

  /** Blocks held, as last published by the writer; safe from any thread. */
  long cachedBlocks() {
    return (long) CACHED.getAcquire(this);
  }

  void publish() {
    CACHED.setRelease(this, (long) held);
  }

  void link(Block parent, Block child) {
    child.parent = parent;
    child.prevSibling = null;
    child.nextSibling = parent.firstChild;
    if (parent.firstChild != null) {
      parent.firstChild.prevSibling = child;
    }
    parent.firstChild = child;
  }

  void unlink(Block child) {
    Block parent = child.parent;
    if (child.prevSibling != null) {
      child.prevSibling.nextSibling = child.nextSibling;
    } else {
      parent.firstChild = child.nextSibling;
    }
    if (child.nextSibling != null) {
      child.nextSibling.prevSibling = child.prevSibling;
    }
    child.parent = null;
    child.prevSibling = null;
    child.nextSibling = null;
  }

  /** Forgets {@code block} if it is a ghost that no longer has children to keep. */
  void pruneIfGhost(Block block) {
    if (block != root && !block.held() && block.firstChild == null) {
      blocks.remove(block.hash);
    }
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
    root.firstChild = null;
    extraAtNode = null;
    held = 0;
  }
}
