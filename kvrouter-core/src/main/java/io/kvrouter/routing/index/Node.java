package io.kvrouter.routing.index;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One position in the shared prefix tree: the path of local block hashes from the root to here, and
 * the set of worker slots that cache the block at this position.
 *
 * <p>Both mutable fields are replaced whole with a compare-and-set, so several writer threads (each
 * owning different workers) can update one node, and readers need only volatile reads. Children are
 * held as {@code null}, a single {@code Node}, or a {@link ConcurrentHashMap} keyed by local hash:
 * most nodes have at most one child, and those cost no map at all.
 */
final class Node {
  private static final VarHandle WORKERS;
  private static final VarHandle CHILDREN;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      WORKERS = lookup.findVarHandle(Node.class, "workers", WorkerSet.class);
      CHILDREN = lookup.findVarHandle(Node.class, "children", Object.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** The node one block up; {@code null} only for the root. */
  final Node parent;

  /** The local block hash this node is keyed by under its parent. */
  final long tokensHash;

  private volatile WorkerSet workers;
  private volatile Object children;

  Node(Node parent, long tokensHash, WorkerSet workers) {
    this.parent = parent;
    this.tokensHash = tokensHash;
    this.workers = workers;
  }

  static Node root() {
    return new Node(null, 0, WorkerSet.DEAD);
  }

  WorkerSet workers() {
    return workers;
  }

  boolean casWorkers(WorkerSet expected, WorkerSet next) {
    return WORKERS.compareAndSet(this, expected, next);
  }

  Node child(long tokensHash) {
    Object c = children;
    if (c == null) {
      return null;
    }
    if (c instanceof Node) {
      Node only = (Node) c;
      return only.tokensHash == tokensHash ? only : null;
    }
    return map(c).get(tokensHash);
  }

  /**
   * Inserts {@code fresh} under its local hash unless a child is there; returns that child or null.
   */
  Node insertIfAbsent(Node fresh) {
    long key = fresh.tokensHash;
    while (true) {
      Object c = children;
      if (c == null) {
        if (CHILDREN.compareAndSet(this, null, fresh)) {
          return null;
        }
      } else if (c instanceof Node) {
        Node only = (Node) c;
        if (only.tokensHash == key) {
          return only;
        }
        ConcurrentHashMap<Long, Node> grown = new ConcurrentHashMap<>(4);
        grown.put(only.tokensHash, only);
        grown.put(key, fresh);
        if (CHILDREN.compareAndSet(this, c, grown)) {
          return null;
        }
      } else {
        return map(c).putIfAbsent(key, fresh);
      }
    }
  }

  /** Unlinks {@code child} if it is still the child under its local hash. */
  void removeChild(Node child) {
    while (true) {
      Object c = children;
      if (c == child) {
        if (CHILDREN.compareAndSet(this, c, null)) {
          return;
        }
      } else {
        if (c != null && !(c instanceof Node)) {
          map(c).remove(child.tokensHash, child);
        }
        return;
      }
    }
  }

  /** A snapshot of the children, for dumps and checks. */
  List<Node> children() {
    Object c = children;
    if (c == null) {
      return List.of();
    }
    if (c instanceof Node) {
      return List.of((Node) c);
    }
    return new ArrayList<>(map(c).values());
  }

  @SuppressWarnings("unchecked")
  private static ConcurrentHashMap<Long, Node> map(Object children) {
    return (ConcurrentHashMap<Long, Node>) children;
  }

  @Override
  public String toString() {
    return "Node[" + Long.toUnsignedString(tokensHash) + " " + workers + "]";
  }
}
