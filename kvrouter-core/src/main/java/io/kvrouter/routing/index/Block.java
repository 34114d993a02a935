package io.kvrouter.routing.index;

/**
 * One block as one worker rank holds it: the worker's own view, linked to its parent block by the
 * worker's own hashes. A {@link WorkerBlocks} owns its blocks; only that worker's writer thread
 * touches them.
 *
 * <p>A block is <em>held</em> while the engine has reported it stored and not removed. A removed
 * block that still has held children stays behind as a <em>ghost</em> (not held, no parent) so that
 * the children keep their link by hash: the engine may store that block again, and then its
 * children are reachable again. A held block is <em>live</em> (sits in the tree, {@code node !=
 * null}) when every block up to the sequence start is held; otherwise it is <em>dormant</em>.
 */
final class Block {
  final long hash;
  long tokensHash;

  /**
   * The parent block, the worker's root sentinel for a first block, or null for a ghost: a block is
   * held exactly while it has a parent (the sentinel is its own), which saves a flag per block.
   */
  Block parent;

  Block firstChild;
  Block prevSibling;
  Block nextSibling;

  /** Where this block sits in the tree while live; null while dormant or a ghost. */
  Node node;

  Block(long hash, long tokensHash) {
    this.hash = hash;
    this.tokensHash = tokensHash;
  }

  /** Whether the engine holds this block (stored and not removed since). */
  boolean held() {
    return parent != null;
  }

  @Override
  public String toString() {
    return "Block["
        + Long.toUnsignedString(hash)
        + (held() ? "" : " ghost")
        + (node == null ? "" : " live")
        + "]";
  }
}
