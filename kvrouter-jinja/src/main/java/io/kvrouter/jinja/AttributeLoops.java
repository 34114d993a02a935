package io.kvrouter.jinja;

import io.kvrouter.jinja.Node.Attr;
import io.kvrouter.jinja.Node.Block;
import io.kvrouter.jinja.Node.CallBlock;
import io.kvrouter.jinja.Node.Const;
import io.kvrouter.jinja.Node.Expr;
import io.kvrouter.jinja.Node.FilterBlock;
import io.kvrouter.jinja.Node.For;
import io.kvrouter.jinja.Node.If;
import io.kvrouter.jinja.Node.Item;
import io.kvrouter.jinja.Node.MacroDef;
import io.kvrouter.jinja.Node.Set;
import io.kvrouter.jinja.Node.SetBlock;
import io.kvrouter.jinja.Node.Stmt;
import io.kvrouter.jinja.Node.Var;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * Finds whether a template loops over an attribute of some value, as in {@code {% for part in
 * message['content'] %}}, {@code message.content}, or a variable set from one of those first
 * ({@code {% set c = message.content %}{% for part in c %}}). That is how vLLM tells a chat
 * template that reads OpenAI content parts from one that expects a string, and this reads the
 * parsed template the same way, without rendering it.
 */
final class AttributeLoops {
  private final String attribute;
  private final java.util.Set<String> aliases = new HashSet<>();
  private final List<For> loops = new ArrayList<>();

  private AttributeLoops(String attribute) {
    this.attribute = attribute;
  }

  static boolean loopsOver(List<Stmt> body, String attribute) {
    AttributeLoops search = new AttributeLoops(attribute);
    search.visit(body);
    return search.loops.stream().anyMatch(loop -> search.reads(loop.iter()));
  }

  private void visit(List<Stmt> statements) {
    if (statements == null) {
      return;
    }
    for (Stmt s : statements) {
      if (s instanceof For f) {
        loops.add(f);
        visit(f.body());
        visit(f.otherwise());
      } else if (s instanceof If i) {
        i.bodies().forEach(this::visit);
        visit(i.otherwise());
      } else if (s instanceof Set set) {
        if (set.attr() == null && set.targets().size() == 1 && accesses(set.value())) {
          aliases.add(set.targets().get(0));
        }
      } else if (s instanceof SetBlock b) {
        visit(b.body());
      } else if (s instanceof FilterBlock b) {
        visit(b.body());
      } else if (s instanceof MacroDef m) {
        visit(m.body());
      } else if (s instanceof CallBlock c) {
        visit(c.caller().body());
      } else if (s instanceof Block b) {
        visit(b.body());
      }
    }
  }

  private boolean reads(Expr iter) {
    return accesses(iter) || (iter instanceof Var v && aliases.contains(v.name()));
  }

  private boolean accesses(Expr e) {
    return (e instanceof Attr a && a.name().equals(attribute))
        || (e instanceof Item i && i.key() instanceof Const c && attribute.equals(c.value()));
  }
}
