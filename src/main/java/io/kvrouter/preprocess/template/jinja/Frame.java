package io.kvrouter.preprocess.template.jinja;

import java.util.HashMap;
import java.util.Map;

/** A variable scope: the render context at the root, then for-loop bodies and macro calls. */
final class Frame {
  private static final Object ABSENT = new Object();
  final Frame parent;
  private final Map<String, Object> vars;

  Frame(Frame parent) {
    this(parent, new HashMap<>(8));
  }

  Frame(Frame parent, Map<String, Object> vars) {
    this.parent = parent;
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
}
