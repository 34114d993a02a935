package io.kvrouter.preprocess.template.jinja;

import io.kvrouter.preprocess.template.jinja.Node.TestFn;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/** Jinja2's built-in tests ({@code x is defined}, {@code x is divisibleby 3}, ...). */
final class Tests {
  private final Map<String, TestFn> tests = new HashMap<>();
  private final Predicate<String> isFilter;

  TestFn get(String name) {
    return tests.get(name);
  }

  /** {@code isFilter} answers the {@code filter} test. */
  Tests(Predicate<String> isFilter) {
    this.isFilter = isFilter;
    tests.put("defined", (v, a) -> !(v instanceof Undefined));
    tests.put("undefined", (v, a) -> v instanceof Undefined);
    tests.put("none", (v, a) -> v == null);
    tests.put("string", (v, a) -> v instanceof String);
    tests.put("number", (v, a) -> Py.isNumber(v));
    tests.put("integer", (v, a) -> v instanceof Long);
    tests.put("float", (v, a) -> v instanceof Double);
    tests.put("boolean", (v, a) -> v instanceof Boolean);
    tests.put("true", (v, a) -> Boolean.TRUE.equals(v));
    tests.put("false", (v, a) -> Boolean.FALSE.equals(v));
    tests.put("mapping", (v, a) -> v instanceof Map);
    tests.put("iterable", (v, a) -> Py.isIterable(v));
    tests.put("sequence", (v, a) -> v instanceof String || v instanceof List || v instanceof Map);
    tests.put("callable", (v, a) -> v instanceof PyCallable);
    tests.put("lower", (v, a) -> v instanceof String s && s.equals(s.toLowerCase(Locale.ROOT)));
    tests.put("upper", (v, a) -> v instanceof String s && s.equals(s.toUpperCase(Locale.ROOT)));
    tests.put("odd", (v, a) -> Py.toLong(number(v)) % 2 != 0);
    tests.put("even", (v, a) -> Py.toLong(number(v)) % 2 == 0);
    tests.put("divisibleby", (v, a) -> Py.toLong(number(v)) % Py.toLong(Methods.arg(a, 0, "num")) == 0);
    tests.put("escaped", (v, a) -> false);
    tests.put("sameas", (v, a) -> {
      Object o = Methods.arg(a, 0, "other");
      return v == o || (v instanceof Boolean && v.equals(o));
    });
    TestFn eq = (v, a) -> Py.eq(v, Methods.arg(a, 0, "other"));
    TestFn ne = (v, a) -> !Py.eq(v, Methods.arg(a, 0, "other"));
    for (String n : new String[] {"eq", "equalto", "=="}) {
      tests.put(n, eq);
    }
    for (String n : new String[] {"ne", "!="}) {
      tests.put(n, ne);
    }
    TestFn lt = (v, a) -> Py.compare(v, Methods.arg(a, 0, "other"), "<") < 0;
    TestFn le = (v, a) -> Py.compare(v, Methods.arg(a, 0, "other"), "<=") <= 0;
    TestFn gt = (v, a) -> Py.compare(v, Methods.arg(a, 0, "other"), ">") > 0;
    TestFn ge = (v, a) -> Py.compare(v, Methods.arg(a, 0, "other"), ">=") >= 0;
    tests.put("lt", lt);
    tests.put("lessthan", lt);
    tests.put("<", lt);
    tests.put("le", le);
    tests.put("<=", le);
    tests.put("gt", gt);
    tests.put("greaterthan", gt);
    tests.put(">", gt);
    tests.put("ge", ge);
    tests.put(">=", ge);
    tests.put("in", (v, a) -> Py.contains(Methods.arg(a, 0, "seq"), v));
    tests.put("filter", (v, a) -> isFilter.test(Py.str(v)));
    tests.put("test", (v, a) -> tests.containsKey(Py.str(v)));
  }

  private static Object number(Object v) {
    if (v instanceof Undefined u) {
      throw u.error();
    }
    if (!Py.isNumber(v)) {
      throw TemplateError.typeError("not all arguments converted during string formatting");
    }
    return v;
  }
}
