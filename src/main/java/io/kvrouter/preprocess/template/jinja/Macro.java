package io.kvrouter.preprocess.template.jinja;

import java.util.List;
import java.util.Map;

/** A {@code {% macro %}}: called with positional and keyword arguments, returns its output. */
final class Macro implements PyCallable {
  private final Node.MacroDef def;
  private final Frame defined;

  Macro(Node.MacroDef def, Frame defined) {
    this.def = def;
    this.defined = defined;
  }

  @Override
  public Object call(List<Object> args, Map<String, Object> kwargs) {
    Frame f = new Frame(defined);
    f.enterCall();
    try {
      return invoke(f, args, kwargs);
    } finally {
      f.leaveCall();
    }
  }

  private String invoke(Frame f, List<Object> args, Map<String, Object> kwargs) {
    List<String> params = def.params();
    if (args.size() > params.size()) {
      throw TemplateError.typeError(
          "macro '" + def.name() + "' takes not more than " + params.size() + " argument(s)");
    }
    for (int i = 0; i < params.size(); i++) {
      String p = params.get(i);
      Object v;
      if (i < args.size()) {
        v = args.get(i);
      } else if (kwargs.containsKey(p)) {
        v = kwargs.get(p);
      } else if (def.defaults().get(i) != null) {
        v = def.defaults().get(i).eval(f);
      } else {
        v = new Undefined("parameter '" + p + "' was not provided");
      }
      f.set(p, v);
    }
    for (String k : kwargs.keySet()) {
      if (!params.contains(k)) {
        throw TemplateError.typeError(
            "macro '" + def.name() + "' takes no keyword argument '" + k + "'");
      }
    }
    StringBuilder out = new StringBuilder();
    Node.execAll(def.body(), f, out);
    return out.toString();
  }

  @Override
  public String toString() {
    return "<Macro '" + def.name() + "'>";
  }
}
