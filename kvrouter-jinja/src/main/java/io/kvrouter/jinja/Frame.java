package io.kvrouter.jinja;

import java.util.HashMap;
import java.util.Map;

/**
 * A variable scope: the render context at the root, then for-loop bodies and macro calls. The root
 * also counts the nested evaluations and macro calls of its render, so that runaway recursion fails
 * as Python's RecursionError would, long before the Java stack overflows.
 */
final class Frame {
  private static final Object ABSENT = new Object();
  final Frame parent;
  private final Frame root;
  private final Map<String, Object> vars;

  /** Only the root's are used: see {@link Limits#MAX_DEPTH} and {@link Limits#MAX_CALL_DEPTH}. */
  private int depth;

  private int calls;

  /** The root scope of one render. */
  Frame(Map<String, Object> vars) {
    this.parent = null;
    this.root = this;
    this.vars = vars;
  }

  Frame(Frame parent) {
    this(parent, new HashMap<>(8));
  }

  Frame(Frame parent, Map<String, Object> vars) {
    this.parent = parent;
    this.root = parent.root;
    this.vars = vars;
  }

  Object lookup(String name) {
    for (Frame f = this; f != null; f = f.parent) {
      Object v = f.vars.getOrDefault(name, ABSENT);
      if (v != ABSENT) {
        return v;
      }
    }
    return Undefined.name(name);
  }

  void set(String name, Object value) {
    vars.put(name, value);
  }

  /** One more link of an operator chain being evaluated, undone by {@link #leave()}. */
  void enter() {
    if (root.depth >= Limits.MAX_DEPTH) {
      throw Limits.recursion(Limits.MAX_DEPTH, "nested operations");
    }
    root.depth++;
  }

  void leave() {
    root.depth--;
  }

  /** One more macro call in progress, undone by {@link #leaveCall()}. */
  void enterCall() {
    if (root.calls >= Limits.MAX_CALL_DEPTH) {
      throw Limits.recursion(Limits.MAX_CALL_DEPTH, "nested macro calls");
    }
    root.calls++;
  }

  void leaveCall() {
    root.calls--;
  }
}
