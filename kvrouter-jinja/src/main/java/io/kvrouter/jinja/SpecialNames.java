package io.kvrouter.jinja;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;

/**
 * Jinja2's {@code find_undeclared} for the macros and call blocks being parsed: which of the
 * special names {@code varargs}, {@code kwargs} and {@code caller} a body loads before anything
 * stores it (a set, a for target, a parameter of a nested macro). A macro whose body loads one
 * takes extra positional arguments, extra keyword arguments or a caller.
 */
final class SpecialNames {
  private static final Set<String> NAMES = Set.of("varargs", "kwargs", "caller");

  private static final class Body {
    final Set<String> candidates = new HashSet<>(NAMES);
    final Set<String> loaded = new HashSet<>();
  }

  /** The bodies being parsed, innermost first; a name counts for all of them. */
  private final Deque<Body> open = new ArrayDeque<>();

  void enterBody() {
    open.push(new Body());
  }

  /** Leaves the innermost body; returns the special names it loaded. */
  Set<String> exitBody() {
    return open.pop().loaded;
  }

  void loaded(String name) {
    for (Body b : open) {
      if (b.candidates.contains(name)) {
        b.loaded.add(name);
      }
    }
  }

  void stored(String name) {
    for (Body b : open) {
      b.candidates.remove(name);
    }
  }
}
