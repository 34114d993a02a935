package io.kvrouter.jinja;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The syntax tree. Expressions evaluate to Python values (see {@link Py}); statements append to the
 * output and return {@link #NORMAL}, {@link #BREAK} or {@link #CONTINUE} for loop control. Filters
 * and tests are resolved to their functions when the template is parsed.
 */
final class Node {
  private Node() {}

  static final int NORMAL = 0;
  static final int BREAK = 1;
  static final int CONTINUE = 2;

  interface Expr {
    Object eval(Frame f);
  }

  interface Stmt {
    int exec(Frame f, StringBuilder out);
  }

  /**
   * Evaluates the operand a chain is built on ({@code a} of {@code a + b}, {@code a.b}, {@code
   * a|f}, {@code a(...)}): the parser builds chains in a loop, not by recursion, so their
   * evaluation depth is bounded here, by {@link Frame#enter()}.
   */
  static Object chained(Expr e, Frame f) {
    f.enter();
    try {
      return e.eval(f);
    } finally {
      f.leave();
    }
  }

  // ---------------- expressions ----------------

  record Const(Object value) implements Expr {
    @Override
    public Object eval(Frame f) {
      return value;
    }
  }

  /** An integer literal beyond 64 bits. */
  record BigInt(BigInteger value) implements Expr {
    @Override
    public Object eval(Frame f) {
      return PyInt.of(value);
    }
  }

  record Var(String name) implements Expr {
    @Override
    public Object eval(Frame f) {
      return f.lookup(name);
    }
  }

  record Attr(Expr obj, String name) implements Expr {
    @Override
    public Object eval(Frame f) {
      return Py.getAttr(chained(obj, f), name);
    }
  }

  record Item(Expr obj, Expr key) implements Expr {
    @Override
    public Object eval(Frame f) {
      return Py.getItem(chained(obj, f), key.eval(f));
    }
  }

  record Slice(Expr obj, Expr start, Expr stop, Expr step) implements Expr {
    @Override
    public Object eval(Frame f) {
      Object o = chained(obj, f);
      return Py.slice(o, index(start, f), index(stop, f), index(step, f));
    }

    private static Object index(Expr e, Frame f) {
      if (e == null) {
        return null;
      }
      Object v = e.eval(f);
      if (v instanceof Undefined u) {
        throw u.error();
      }
      if (v != null && !Py.isInt(v)) {
        throw TemplateError.typeError(
            "slice indices must be integers or None or have an __index__ method");
      }
      return v;
    }
  }

  record Args(List<Expr> positional, List<String> names, List<Expr> values) {
    static final Args NONE = new Args(List.of(), List.of(), List.of());

    List<Object> evalPositional(Frame f) {
      if (positional.isEmpty()) {
        return List.of();
      }
      List<Object> r = new ArrayList<>(positional.size());
      for (Expr e : positional) {
        r.add(e.eval(f));
      }
      return r;
    }

    Map<String, Object> evalKeywords(Frame f) {
      if (names.isEmpty()) {
        return Map.of();
      }
      Map<String, Object> r = new LinkedHashMap<>();
      for (int i = 0; i < names.size(); i++) {
        r.put(names.get(i), values.get(i).eval(f));
      }
      return r;
    }
  }

  record Call(Expr fn, Args args) implements Expr {
    @Override
    public Object eval(Frame f) {
      Object callee = chained(fn, f);
      return call(callee, args.evalPositional(f), args.evalKeywords(f));
    }

    static Object call(Object callee, List<Object> positional, Map<String, Object> keywords) {
      if (callee instanceof PyCallable c) {
        return c.call(positional, keywords);
      }
      if (callee instanceof Undefined u) {
        throw u.error();
      }
      throw TemplateError.typeError("'" + Py.typeName(callee) + "' object is not callable");
    }
  }

  interface FilterFn {
    Object apply(Object value, List<Object> args, Map<String, Object> kwargs);
  }

  record Filter(Expr arg, String name, FilterFn fn, Args args) implements Expr {
    @Override
    public Object eval(Frame f) {
      return fn.apply(chained(arg, f), args.evalPositional(f), args.evalKeywords(f));
    }
  }

  interface TestFn {
    boolean test(Object value, List<Object> args);
  }

  record Test(Expr arg, String name, TestFn fn, Args args, boolean negated) implements Expr {
    @Override
    public Object eval(Frame f) {
      Object value = chained(arg, f);
      if (!args.names().isEmpty()) {
        throw TemplateError.unsupported("keyword arguments to the test " + name);
      }
      return fn.test(value, args.evalPositional(f)) != negated;
    }
  }

  record Neg(Expr e, boolean minus) implements Expr {
    @Override
    public Object eval(Frame f) {
      Object v = e.eval(f);
      if (v instanceof Undefined u) {
        throw u.error();
      }
      if (!Py.isNumber(v)) {
        throw TemplateError.typeError(
            "bad operand type for unary " + (minus ? "-" : "+") + ": '" + Py.typeName(v) + "'");
      }
      if (!minus) {
        return v instanceof Boolean ? (Object) Py.toLong(v) : v;
      }
      return v instanceof Double d ? (Object) (-d) : PyInt.negate(v);
    }
  }

  record Not(Expr e) implements Expr {
    @Override
    public Object eval(Frame f) {
      return !Py.truthy(e.eval(f));
    }
  }

  record And(Expr l, Expr r) implements Expr {
    @Override
    public Object eval(Frame f) {
      Object a = chained(l, f);
      return Py.truthy(a) ? r.eval(f) : a;
    }
  }

  record Or(Expr l, Expr r) implements Expr {
    @Override
    public Object eval(Frame f) {
      Object a = chained(l, f);
      return Py.truthy(a) ? a : r.eval(f);
    }
  }

  record Concat(List<Expr> parts) implements Expr {
    @Override
    public Object eval(Frame f) {
      StringBuilder sb = new StringBuilder();
      for (Expr p : parts) {
        Py.appendStr(sb, p.eval(f));
        Limits.checkBuilt(sb, "a concatenation");
      }
      return sb.toString();
    }
  }

  record BinOp(String op, Expr l, Expr r) implements Expr {
    @Override
    public Object eval(Frame f) {
      Object a = chained(l, f);
      Object b = r.eval(f);
      return op.equals("+") ? Py.add(a, b) : Py.arith(op, a, b);
    }
  }

  record Compare(Expr first, List<String> ops, List<Expr> rest) implements Expr {
    @Override
    public Object eval(Frame f) {
      Object a = first.eval(f);
      for (int i = 0; i < ops.size(); i++) {
        Object b = rest.get(i).eval(f);
        if (!compare(ops.get(i), a, b)) {
          return false;
        }
        a = b;
      }
      return true;
    }

    static boolean compare(String op, Object a, Object b) {
      switch (op) {
        case "==":
          return Py.eq(a, b);
        case "!=":
          return !Py.eq(a, b);
        case "<":
          return Py.compare(a, b, op) < 0;
        case "<=":
          return Py.compare(a, b, op) <= 0;
        case ">":
          return Py.compare(a, b, op) > 0;
        case ">=":
          return Py.compare(a, b, op) >= 0;
        case "in":
          return Py.contains(b, a);
        case "notin":
          return !Py.contains(b, a);
        default:
          throw TemplateError.unsupported("comparison " + op);
      }
    }
  }

  record Cond(Expr test, Expr then, Expr otherwise) implements Expr {
    @Override
    public Object eval(Frame f) {
      if (Py.truthy(test.eval(f))) {
        return chained(then, f);
      }
      return otherwise == null
          ? new Undefined(
              "the inline if-expression evaluated to false and no else section was defined.")
          : otherwise.eval(f);
    }
  }

  record ListLit(List<Expr> items) implements Expr {
    @Override
    public Object eval(Frame f) {
      List<Object> r = new ArrayList<>(items.size());
      for (Expr e : items) {
        r.add(e.eval(f));
      }
      return r;
    }
  }

  record TupleLit(List<Expr> items) implements Expr {
    @Override
    public Object eval(Frame f) {
      Object[] r = new Object[items.size()];
      for (int i = 0; i < r.length; i++) {
        r[i] = items.get(i).eval(f);
      }
      return new PyTuple(r);
    }
  }

  record DictLit(List<Expr> keys, List<Expr> values) implements Expr {
    @Override
    public Object eval(Frame f) {
      Map<Object, Object> r = new LinkedHashMap<>();
      for (int i = 0; i < keys.size(); i++) {
        DictKeys.put(r, keys.get(i).eval(f), values.get(i).eval(f));
      }
      return r;
    }
  }

  // ---------------- statements ----------------

  /** Prints {@code v} to {@code out}, which may not outgrow {@link Limits#MAX_LENGTH}. */
  static void emit(StringBuilder out, Object v) {
    Py.appendStr(out, v);
    Limits.checkBuilt(out, "the output");
  }

  static int execAll(List<Stmt> body, Frame f, StringBuilder out) {
    for (int i = 0, n = body.size(); i < n; i++) {
      int r = body.get(i).exec(f, out);
      if (r != NORMAL) {
        return r;
      }
    }
    return NORMAL;
  }

  record Text(String text) implements Stmt {
    @Override
    public int exec(Frame f, StringBuilder out) {
      emit(out, text);
      return NORMAL;
    }
  }

  record Output(Expr e, int line) implements Stmt {
    @Override
    public int exec(Frame f, StringBuilder out) {
      try {
        emit(out, e.eval(f));
      } catch (RuntimeException err) {
        throw TemplateError.at(err, line);
      }
      return NORMAL;
    }
  }

  record If(List<Expr> tests, List<List<Stmt>> bodies, List<Stmt> otherwise, int line)
      implements Stmt {
    @Override
    public int exec(Frame f, StringBuilder out) {
      for (int i = 0; i < tests.size(); i++) {
        boolean t;
        try {
          t = Py.truthy(tests.get(i).eval(f));
        } catch (RuntimeException err) {
          throw TemplateError.at(err, line);
        }
        if (t) {
          return execAll(bodies.get(i), f, out);
        }
      }
      return otherwise == null ? NORMAL : execAll(otherwise, f, out);
    }
  }

  /** Binds a value to one name or unpacks it over several ({@code for k, v in ...}). */
  static void bind(Frame f, List<String> targets, Object value) {
    if (targets.size() == 1) {
      f.set(targets.get(0), value);
      return;
    }
    List<?> items = Py.iterable(value);
    if (items.size() != targets.size()) {
      throw TemplateError.of(
          "ValueError",
          items.size() > targets.size()
              ? "too many values to unpack (expected " + targets.size() + ")"
              : "not enough values to unpack (expected "
                  + targets.size()
                  + ", got "
                  + items.size()
                  + ")");
    }
    for (int i = 0; i < targets.size(); i++) {
      f.set(targets.get(i), items.get(i));
    }
  }

  record For(
      List<String> targets, Expr iter, Expr filter, List<Stmt> body, List<Stmt> otherwise, int line)
      implements Stmt {
    @Override
    public int exec(Frame f, StringBuilder out) {
      List<?> items;
      try {
        Object seq = iter.eval(f);
        items = Py.iterable(seq);
        if (filter != null) {
          List<Object> kept = new ArrayList<>();
          Frame probe = new Frame(f);
          for (Object item : items) {
            bind(probe, targets, item);
            if (Py.truthy(filter.eval(probe))) {
              kept.add(item);
            }
          }
          items = kept;
        }
      } catch (RuntimeException err) {
        throw TemplateError.at(err, line);
      }
      Loop loop = new Loop(items);
      for (int i = 0; i < items.size(); i++) {
        loop.index0 = i;
        Frame inner = new Frame(f);
        inner.set("loop", loop);
        try {
          bind(inner, targets, items.get(i));
        } catch (RuntimeException err) {
          throw TemplateError.at(err, line);
        }
        int r = execAll(body, inner, out);
        if (r == BREAK) {
          break;
        }
      }
      if (items.isEmpty() && otherwise != null) {
        return execAll(otherwise, f, out);
      }
      return NORMAL;
    }
  }

  record Set(List<String> targets, String attr, Expr value, int line) implements Stmt {
    @Override
    public int exec(Frame f, StringBuilder out) {
      try {
        Object v = value.eval(f);
        if (attr != null) {
          Object ns = f.lookup(targets.get(0));
          if (!(ns instanceof Namespace n)) {
            throw TemplateError.of(
                "TemplateRuntimeError", "cannot assign attribute on non-namespace object");
          }
          n.attrs.put(attr, v);
        } else {
          bind(f, targets, v);
        }
      } catch (RuntimeException err) {
        throw TemplateError.at(err, line);
      }
      return NORMAL;
    }
  }

  /** What {@code {% set x | f %}} and {@code {% filter f %}} make of their body's output. */
  static Object filtered(List<Stmt> body, List<Filter> filters, Frame f) {
    StringBuilder sb = new StringBuilder();
    execAll(body, f, sb);
    Object v = sb.toString();
    for (Filter flt : filters) {
      v = flt.fn().apply(v, flt.args().evalPositional(f), flt.args().evalKeywords(f));
    }
    return v;
  }

  record SetBlock(String name, List<Stmt> body, List<Filter> filters, int line) implements Stmt {
    @Override
    public int exec(Frame f, StringBuilder out) {
      try {
        f.set(name, filtered(body, filters, f));
      } catch (RuntimeException err) {
        throw TemplateError.at(err, line);
      }
      return NORMAL;
    }
  }

  record FilterBlock(List<Stmt> body, List<Filter> filters, int line) implements Stmt {
    @Override
    public int exec(Frame f, StringBuilder out) {
      try {
        emit(out, filtered(body, filters, f));
      } catch (RuntimeException err) {
        throw TemplateError.at(err, line);
      }
      return NORMAL;
    }
  }

  /**
   * A macro: its parameters with their defaults (null where there is none), and whether its body
   * loads varargs, kwargs or caller, which makes it take extra arguments or a caller.
   */
  record MacroDef(
      String name,
      List<String> params,
      List<Expr> defaults,
      List<Stmt> body,
      boolean catchVarargs,
      boolean catchKwargs,
      boolean caller)
      implements Stmt {
    @Override
    public int exec(Frame f, StringBuilder out) {
      f.set(name, new Macro(this, f));
      return NORMAL;
    }
  }

  /** {@code {% call %}}: the call with one more keyword argument, {@code caller}. */
  record CallBlock(Call call, MacroDef caller, int line) implements Stmt {
    @Override
    public int exec(Frame f, StringBuilder out) {
      try {
        Object callee = chained(call.fn(), f);
        List<Object> positional = call.args().evalPositional(f);
        Map<String, Object> keywords = new LinkedHashMap<>(call.args().evalKeywords(f));
        keywords.put("caller", new Macro(caller, f));
        emit(out, Call.call(callee, positional, keywords));
      } catch (RuntimeException err) {
        throw TemplateError.at(err, line);
      }
      return NORMAL;
    }
  }

  record Block(List<Stmt> body) implements Stmt {
    @Override
    public int exec(Frame f, StringBuilder out) {
      return execAll(body, f, out);
    }
  }

  record Control(int signal) implements Stmt {
    @Override
    public int exec(Frame f, StringBuilder out) {
      return signal;
    }
  }
}
