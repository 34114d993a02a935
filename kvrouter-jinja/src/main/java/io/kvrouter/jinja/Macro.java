package io.kvrouter.jinja;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@code {% macro %}} (or a call block's {@code caller}): called with positional and keyword
 * arguments as Jinja2's {@code Macro.__call__} binds them, returns its output.
 */
final class Macro implements PyCallable {
  /** A parameter the call did not give: its default, else an Undefined, applies. */
  private static final Object MISSING = new Object();

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
      bind(f, args, kwargs);
      StringBuilder out = new StringBuilder();
      Node.execAll(def.body(), f, out);
      return out.toString();
    } finally {
      f.leaveCall();
    }
  }

  /**
   * Positional arguments fill the parameters in order; only when they do not fill them all do
   * keyword arguments name the rest. What is left goes to {@code varargs} and {@code kwargs} if the
   * body loads them, else it is a TypeError; {@code caller} is a keyword argument of its own.
   */
  private void bind(Frame f, List<Object> args, Map<String, Object> kwargs) {
    List<String> params = def.params();
    int count = params.size();
    Map<String, Object> rest = new LinkedHashMap<>(kwargs);
    Object[] values = new Object[count];
    boolean foundCaller = params.contains("caller");
    for (int i = 0; i < count; i++) {
      if (i < args.size()) {
        values[i] = args.get(i);
      } else {
        values[i] = rest.containsKey(params.get(i)) ? rest.remove(params.get(i)) : MISSING;
      }
    }
    Object caller = null;
    boolean implicitCaller = def.caller() && !foundCaller;
    if (implicitCaller) {
      caller = rest.remove("caller");
      if (caller == null) {
        caller = new Undefined("No caller defined");
      }
    }
    if (!def.catchKwargs() && !rest.isEmpty()) {
      if (rest.containsKey("caller")) {
        throw TemplateError.typeError(
            "macro '"
                + def.name()
                + "' was invoked with two values for"
                + " the special caller argument. This is most likely a bug.");
      }
      throw TemplateError.typeError(
          "macro '"
              + def.name()
              + "' takes no keyword argument '"
              + rest.keySet().iterator().next()
              + "'");
    }
    if (!def.catchVarargs() && args.size() > count) {
      throw TemplateError.typeError(
          "macro '" + def.name() + "' takes not more than " + count + " argument(s)");
    }
    for (int i = 0; i < count; i++) {
      Object v = values[i];
      if (v == MISSING) {
        Node.Expr dflt = def.defaults().get(i);
        // a default sees the parameters before it
        v =
            dflt != null
                ? dflt.eval(f)
                : new Undefined("parameter '" + params.get(i) + "' was not provided");
      }
      f.set(params.get(i), v);
    }
    if (implicitCaller) {
      f.set("caller", caller);
    }
    if (def.catchKwargs()) {
      f.set("kwargs", rest);
    }
    if (def.catchVarargs()) {
      f.set(
          "varargs",
          new PyTuple(
              args.size() > count ? args.subList(count, args.size()).toArray() : new Object[0]));
    }
  }

  /** What Jinja2's Macro object exposes: name, arguments, catch_varargs, catch_kwargs, caller. */
  Object attribute(String name) {
    return switch (name) {
      case "name" -> def.name();
      case "arguments" -> new PyTuple(def.params().toArray());
      case "catch_varargs" -> def.catchVarargs();
      case "catch_kwargs" -> def.catchKwargs();
      case "caller" -> def.caller();
      default -> Undefined.attr(this, name);
    };
  }

  @Override
  public String toString() {
    return "<Macro '" + def.name() + "'>";
  }
}
