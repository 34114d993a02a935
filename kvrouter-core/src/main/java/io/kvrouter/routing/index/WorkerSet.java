package io.kvrouter.routing.index;

import java.util.Arrays;

/**
 * An immutable set of worker slots (small ints), sorted, with a 64-bit fingerprint: the sum of a
 * mixed value per member. Nodes replace their set as a whole, so a reader always sees one
 * consistent set per node.
 *
 * <p>Two sets of the same size and fingerprint are treated as equal by {@link
 * RadixTree#findMatches}. In a quiescent tree that check is exact without the fingerprint (a
 * child's set is a subset of its parent's, so equal size means equal sets); the fingerprint is what
 * keeps a read that races a writer exact, with a false match between two different sets of equal
 * size having probability about 2<sup>-64</sup>.
 */
final class WorkerSet {

  /**
   * The set of a node that lost its last worker. It is never revived: a new node takes its place.
   */
  static final WorkerSet DEAD = new WorkerSet(new int[0], 0);

  private final int[] ids;
  private final long fingerprint;

  private WorkerSet(int[] ids, long fingerprint) {
    this.ids = ids;
    this.fingerprint = fingerprint;
  }

  static WorkerSet of(int id) {
    return new WorkerSet(new int[] {id}, mix(id));
  }

  int size() {
    return ids.length;
  }

  long fingerprint() {
    return fingerprint;
  }

  /** The members in ascending order; callers must not modify the array. */
  int[] ids() {
    return ids;
  }

  boolean contains(int id) {
    return indexOf(id) >= 0;
  }

  /** This set plus {@code id}; {@code this} when already a member. */
  WorkerSet with(int id) {
    int at = indexOf(id);
    if (at >= 0) {
      return this;
    }
    int insert = -at - 1;
    int[] next = new int[ids.length + 1];
    System.arraycopy(ids, 0, next, 0, insert);
    next[insert] = id;
    System.arraycopy(ids, insert, next, insert + 1, ids.length - insert);
    return new WorkerSet(next, fingerprint + mix(id));
  }

  /** This set minus {@code id}; {@code this} when not a member. */
  WorkerSet without(int id) {
    int at = indexOf(id);
    if (at < 0) {
      return this;
    }
    int[] next = new int[ids.length - 1];
    System.arraycopy(ids, 0, next, 0, at);
    System.arraycopy(ids, at + 1, next, at, ids.length - at - 1);
    return new WorkerSet(next, fingerprint - mix(id));
  }

  /**
   * Whether this set is exactly {@code base} plus {@code id}, {@code id} not being in {@code base}:
   * lets a writer reuse a set it made rather than build an equal one.
   */
  boolean isWith(WorkerSet base, int id) {
    int[] a = ids;
    int[] b = base.ids;
    if (a.length != b.length + 1 || fingerprint != base.fingerprint + mix(id)) {
      return false;
    }
    int j = 0;
    boolean added = false;
    for (int member : a) {
      if (member == id && !added) {
        added = true;
      } else if (j < b.length && b[j] == member) {
        j++;
      } else {
        return false;
      }
    }
    return added;
  }

  private int indexOf(int id) {
    int[] a = ids;
    if (a.length <= 8) {
      for (int i = 0; i < a.length; i++) {
        if (a[i] == id) {
          return i;
        }
        if (a[i] > id) {
          return -i - 1;
        }
      }
      return -a.length - 1;
    }
    return Arrays.binarySearch(a, id);
  }

  /** A member's share of the fingerprint: the SplitMix64 finalizer of its slot. */
  static long mix(int id) {
    long z = (id + 1) * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  @Override
  public String toString() {
    return this == DEAD ? "DEAD" : Arrays.toString(ids);
  }
}
