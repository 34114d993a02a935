package io.kvrouter.routing.index;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntConsumer;

/**
 * One rank's blocks, each an {@code int} (its <em>slot</em>) into paged primitive arrays, with a
 * table from block hash to slot. A block costs 28 bytes in the pages plus 5–8 in the table and no
 * object of its own, so a million blocks are a few hundred arrays for the collector rather than a
 * million objects linked to each other (which it would have to track across regions).
 *
 * <p>Per slot:
 *
 * <pre>
 *   hashes page  [s]    block hash
 *   links page   [4s]   parent slot          [4s+1] first child slot
 *                [4s+2] previous sibling     [4s+3] next sibling      (NONE when absent)
 *   nodes page   [s]    the tree node while the block is live, else null
 * </pre>
 *
 * A block's tokens hash (its local hash) is its node's key while it is live; only blocks out of the
 * tree, which engines that evict children before parents rarely leave behind, keep theirs in a side
 * map.
 *
 * <p>Slot {@link #ROOT} is the rank's root sentinel: the parent of its first blocks, never in the
 * table. Freed slots are reused (a free list threaded through the next-sibling field); pages are
 * kept until {@link #clear}. The first page starts small and doubles up to {@link #PAGE} slots, so
 * a rank with few blocks costs little. The table is open addressing with linear probing over slots,
 * keyed by the hash in the slot's page, with backward-shift deletion. Not thread-safe: only the
 * rank's writer touches it.
 */
final class BlockArena {
  /** No block: an absent parent, child or sibling. */
  static final int NONE = -1;

  /** The root sentinel's slot. */
  static final int ROOT = 0;

  private static final int PAGE_BITS = 10;
  private static final int PAGE = 1 << PAGE_BITS;
  private static final int IN_PAGE = PAGE - 1;
  private static final int FIRST_PAGE = 16;
  private static final int MIN_TABLE = 16;

  private static final int PARENT = 0;
  private static final int FIRST_CHILD = 1;
  private static final int PREV = 2;
  private static final int NEXT = 3;

  private long[][] hashes;
  private final Map<Integer, Long> tokensOutOfTree = new HashMap<>();
  private int[][] links;
  private Node[][] nodes;

  /** Slots the pages can hold. */
  private int capacity;

  /** Slots handed out so far (the root included); freed ones wait on {@link #free}. */
  private int top;

  private int free;

  /** Slots by hash, each entry a slot (never {@link #ROOT}, so 0 marks an empty entry). */
  private int[] table;

  private int size;

  /** The tree's root, the sentinel's node. */
  private final Node treeRoot;

  BlockArena(Node treeRoot) {
    this.treeRoot = treeRoot;
    clear();
  }

  /** Blocks in the table (the sentinel is not one). */
  int size() {
    return size;
  }

  /** The slot of the block whose hash is {@code hash}, or {@link #NONE}. */
  int find(long hash) {
    int[] t = table;
    int mask = t.length - 1;
    for (int i = home(hash, mask); ; i = (i + 1) & mask) {
      int slot = t[i];
      if (slot == 0) {
        return NONE;
      }
      if (hash(slot) == hash) {
        return slot;
      }
    }
  }

  /**
   * A new block, unlinked, at {@code node} (keyed by {@code tokensHash}) or out of the tree if
   * {@code node} is null; no block with {@code hash} may be present.
   */
  int add(long hash, long tokensHash, Node node) {
    int slot = allocate();
    hashes[slot >>> PAGE_BITS][slot & IN_PAGE] = hash;
    int[] l = links[slot >>> PAGE_BITS];
    Arrays.fill(l, (slot & IN_PAGE) << 2, ((slot & IN_PAGE) << 2) + 4, NONE);
    if (node == null) {
      tokensOutOfTree.put(slot, tokensHash);
    } else {
      checkKey(node, tokensHash);
      nodes[slot >>> PAGE_BITS][slot & IN_PAGE] = node;
    }
    if (++size > table.length * 3 / 4) {
      rehash(table.length * 2);
    }
    insert(table, slot);
    return slot;
  }

  /** Forgets {@code slot}, which must be in the table; the slot may be handed out again. */
  void remove(int slot) {
    int[] t = table;
    int mask = t.length - 1;
    int i = home(hash(slot), mask);
    while (t[i] != slot) {
      i = (i + 1) & mask;
    }
    shiftBack(t, i);
    size--;
    if (node(slot) == null) {
      tokensOutOfTree.remove(slot);
    }
    nodes[slot >>> PAGE_BITS][slot & IN_PAGE] = null;
    setLink(slot, NEXT, free);
    free = slot;
  }

  /** Calls {@code action} with every block's slot, in no particular order. */
  void forEach(IntConsumer action) {
    for (int slot : table) {
      if (slot != 0) {
        action.accept(slot);
      }
    }
  }

  /** Drops every block and the pages; the sentinel stays, with no children, at the tree's root. */
  void clear() {
    hashes = new long[1][FIRST_PAGE];
    tokensOutOfTree.clear();
    links = new int[1][4 * FIRST_PAGE];
    nodes = new Node[1][FIRST_PAGE];
    capacity = FIRST_PAGE;
    top = 0;
    free = NONE;
    table = new int[MIN_TABLE];
    size = 0;
    int root = allocate();
    Arrays.fill(links[0], 0, 4, NONE);
    setLink(root, PARENT, root); // its own parent: held, and never a ghost
    nodes[0][root] = treeRoot;
  }

  /** Blocks out of the tree (dormant and ghost blocks), whose tokens hash is kept aside. */
  int outOfTree() {
    return tokensOutOfTree.size();
  }

  long hash(int slot) {
    return hashes[slot >>> PAGE_BITS][slot & IN_PAGE];
  }

  long tokensHash(int slot) {
    Node node = node(slot);
    return node != null ? node.tokensHash : tokensOutOfTree.get(slot);
  }

  /** Gives a block out of the tree a new tokens hash (a block stored again at a new position). */
  void setTokensHash(int slot, long tokensHash) {
    if (node(slot) != null) {
      throw new IllegalStateException("a live block's tokens hash is its node's");
    }
    tokensOutOfTree.put(slot, tokensHash);
  }

  int parent(int slot) {
    return link(slot, PARENT);
  }

  void setParent(int slot, int parent) {
    setLink(slot, PARENT, parent);
  }

  int firstChild(int slot) {
    return link(slot, FIRST_CHILD);
  }

  void setFirstChild(int slot, int child) {
    setLink(slot, FIRST_CHILD, child);
  }

  int prevSibling(int slot) {
    return link(slot, PREV);
  }

  void setPrevSibling(int slot, int sibling) {
    setLink(slot, PREV, sibling);
  }

  int nextSibling(int slot) {
    return link(slot, NEXT);
  }

  void setNextSibling(int slot, int sibling) {
    setLink(slot, NEXT, sibling);
  }

  Node node(int slot) {
    return nodes[slot >>> PAGE_BITS][slot & IN_PAGE];
  }

  /**
   * Puts a block in the tree at {@code node}, which must be keyed by the block's tokens hash, or
   * takes it out with {@code null}.
   */
  void setNode(int slot, Node node) {
    Node[] page = nodes[slot >>> PAGE_BITS];
    Node old = page[slot & IN_PAGE];
    if (node == null && old != null) {
      tokensOutOfTree.put(slot, old.tokensHash);
    } else if (node != null && old == null) {
      checkKey(node, tokensOutOfTree.remove(slot));
    } else if (node != null) {
      checkKey(node, old.tokensHash);
    }
    page[slot & IN_PAGE] = node;
  }

  private static void checkKey(Node node, long tokensHash) {
    if (node.tokensHash != tokensHash) {
      throw new IllegalStateException("a block's node is keyed by another tokens hash");
    }
  }

  private int link(int slot, int field) {
    return links[slot >>> PAGE_BITS][((slot & IN_PAGE) << 2) + field];
  }

  private void setLink(int slot, int field, int value) {
    links[slot >>> PAGE_BITS][((slot & IN_PAGE) << 2) + field] = value;
  }

  private int allocate() {
    if (free != NONE) {
      int slot = free;
      free = link(slot, NEXT);
      return slot;
    }
    if (top == capacity) {
      grow();
    }
    return top++;
  }

  /** Doubles the first page until it is a whole page, then adds whole pages. */
  private void grow() {
    if (capacity < PAGE) {
      capacity *= 2;
      hashes[0] = Arrays.copyOf(hashes[0], capacity);
      links[0] = Arrays.copyOf(links[0], 4 * capacity);
      nodes[0] = Arrays.copyOf(nodes[0], capacity);
      return;
    }
    int page = capacity >>> PAGE_BITS;
    if (page == hashes.length) {
      hashes = Arrays.copyOf(hashes, page * 2);
      links = Arrays.copyOf(links, page * 2);
      nodes = Arrays.copyOf(nodes, page * 2);
    }
    hashes[page] = new long[PAGE];
    links[page] = new int[4 * PAGE];
    nodes[page] = new Node[PAGE];
    capacity += PAGE;
  }

  private void insert(int[] t, int slot) {
    int mask = t.length - 1;
    int i = home(hash(slot), mask);
    while (t[i] != 0) {
      i = (i + 1) & mask;
    }
    t[i] = slot;
  }

  private void rehash(int length) {
    int[] old = table;
    int[] next = new int[length];
    for (int slot : old) {
      if (slot != 0) {
        insert(next, slot);
      }
    }
    table = next;
  }

  /** Empties entry {@code hole}, moving later members of its probe run back so none is cut off. */
  private void shiftBack(int[] t, int hole) {
    int mask = t.length - 1;
    int i = hole;
    while (true) {
      i = (i + 1) & mask;
      int slot = t[i];
      if (slot == 0) {
        break;
      }
      int home = home(hash(slot), mask);
      // move the entry at i into the hole unless its home lies cyclically in (hole, i]
      boolean stays = hole <= i ? (hole < home && home <= i) : (hole < home || home <= i);
      if (!stays) {
        t[hole] = slot;
        hole = i;
      }
    }
    t[hole] = 0;
  }

  private static int home(long hash, int mask) {
    long h = hash * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32)) & mask;
  }
}
