package io.kvrouter.jinja;

import io.kvrouter.jinja.Node.Attr;
import io.kvrouter.jinja.Node.Block;
import io.kvrouter.jinja.Node.CallBlock;
import io.kvrouter.jinja.Node.Const;
import io.kvrouter.jinja.Node.Expr;
import io.kvrouter.jinja.Node.Filter;
import io.kvrouter.jinja.Node.FilterBlock;
import io.kvrouter.jinja.Node.For;
import io.kvrouter.jinja.Node.If;
import io.kvrouter.jinja.Node.Item;
import io.kvrouter.jinja.Node.MacroDef;
import io.kvrouter.jinja.Node.Set;
import io.kvrouter.jinja.Node.SetBlock;
import io.kvrouter.jinja.Node.Slice;
import io.kvrouter.jinja.Node.Stmt;
import io.kvrouter.jinja.Node.Test;
import io.kvrouter.jinja.Node.Var;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Whether a chat template reads a message's content as a list of parts: vLLM's automatic content
 * format ("openai" when this finds a loop, else "string"), decided from the parsed template without
 * rendering it. The rule is vLLM's, read in {@code vllm/renderers/hf.py} at commit {@code
 * e7ad92e5308e67c9657fc06f351ff4326848f130} ({@code _detect_content_format} and the helpers it
 * calls), and it is narrower than "some loop over some {@code content}":
 *
 * <ol>
 *   <li>The names that hold the conversation are {@code messages} and every variable set from one
 *       of them ({@code {% set loop_messages = messages[1:] %}}), followed from name to name. A
 *       value counts as the name itself, the name behind filters ({@code messages|reverse}), behind
 *       a test, or sliced ({@code messages[1:]}); an index ({@code messages[0]}) does not.
 *   <li>The names that hold one message are the targets of {@code for} loops over such a value.
 *   <li>The template reads parts when some {@code for} loop iterates over {@code m.content} or
 *       {@code m['content']} of such a name, again through filters, tests or a slice.
 * </ol>
 *
 * A variable set from a message's content ({@code {% set c = message.content %}}) is not followed,
 * so Mistral Nemo's {@code {% set tool_calls = message.content %}} and its later loop over {@code
 * tool_calls} do not make it a parts template. Every {@code set} and {@code for} in the template
 * counts wherever it stands (vLLM does not follow scopes). Where vLLM's own search stops on an
 * assertion (a {@code set} to a namespace attribute or to several names from a conversation value,
 * a loop with several targets over the conversation, or a first matching content loop with several
 * targets), vLLM falls back to "string", and so does this.
 */
final class MessageContentLoops {
  private final List<Set> assignments = new ArrayList<>();
  private final List<For> loops = new ArrayList<>();

  /** Thrown where vLLM's search fails an assertion and it falls back to "string". */
  private static final class Unresolved extends Exception {
    Unresolved() {
      super(null, null, false, false);
    }
  }

  private MessageContentLoops() {}

  static boolean found(List<Stmt> body) {
    MessageContentLoops search = new MessageContentLoops();
    search.collect(body);
    try {
      return search.contentLoopFound(search.messageNames(search.conversationNames()));
    } catch (Unresolved e) {
      return false;
    }
  }

  /** Every {@code set} and {@code for} statement, in document order, wherever it stands. */
  private void collect(List<Stmt> statements) {
    if (statements == null) {
      return;
    }
    for (Stmt s : statements) {
      if (s instanceof For f) {
        loops.add(f);
        collect(f.body());
        collect(f.otherwise());
      } else if (s instanceof If i) {
        i.bodies().forEach(this::collect);
        collect(i.otherwise());
      } else if (s instanceof Set set) {
        assignments.add(set);
      } else if (s instanceof SetBlock b) {
        collect(b.body());
      } else if (s instanceof FilterBlock b) {
        collect(b.body());
      } else if (s instanceof MacroDef m) {
        collect(m.body());
      } else if (s instanceof CallBlock c) {
        collect(c.caller().body());
      } else if (s instanceof Block b) {
        collect(b.body());
      }
    }
  }

  /** {@code messages} and the names set from it, from them, and so on. */
  private java.util.Set<String> conversationNames() throws Unresolved {
    java.util.Set<String> names = new LinkedHashSet<>();
    names.add("messages");
    Deque<String> pending = new ArrayDeque<>(names);
    while (!pending.isEmpty()) {
      String name = pending.removeFirst();
      for (Set set : assignments) {
        if (reaches(set.value(), name, null)) {
          if (set.attr() != null || set.targets().size() != 1) {
            throw new Unresolved();
          }
          String target = set.targets().get(0);
          if (names.add(target)) {
            pending.addLast(target);
          }
        }
      }
    }
    return names;
  }

  /** The targets of loops over a conversation value. */
  private java.util.Set<String> messageNames(java.util.Set<String> conversations)
      throws Unresolved {
    java.util.Set<String> names = new LinkedHashSet<>();
    for (For loop : loops) {
      for (String conversation : conversations) {
        if (reaches(loop.iter(), conversation, null)) {
          names.add(singleTarget(loop));
          break;
        }
      }
    }
    return names;
  }

  /** Whether the first loop over a message's content (in document order) exists. */
  private boolean contentLoopFound(java.util.Set<String> messages) throws Unresolved {
    for (For loop : loops) {
      for (String message : messages) {
        if (reaches(loop.iter(), message, "content")) {
          singleTarget(loop);
          return true;
        }
      }
    }
    return false;
  }

  private static String singleTarget(For loop) throws Unresolved {
    if (loop.targets().size() != 1) {
      throw new Unresolved();
    }
    return loop.targets().get(0);
  }

  /**
   * Whether {@code e} is {@code name} (or, with a key, {@code name.key} / {@code name['key']}),
   * possibly behind filters, tests (not a negated one: Jinja2 wraps {@code is not} in a {@code
   * not}) and slices.
   */
  private static boolean reaches(Expr e, String name, String key) {
    if (e instanceof Filter f) {
      return reaches(f.arg(), name, key);
    }
    if (e instanceof Test t) {
      return !t.negated() && reaches(t.arg(), name, key);
    }
    if (e instanceof Slice s) {
      return reaches(s.obj(), name, key);
    }
    if (key == null) {
      return e instanceof Var v && v.name().equals(name);
    }
    if (e instanceof Attr a) {
      return a.name().equals(key) && a.obj() instanceof Var v && v.name().equals(name);
    }
    return e instanceof Item i
        && i.key() instanceof Const c
        && key.equals(c.value())
        && i.obj() instanceof Var v
        && v.name().equals(name);
  }
}
