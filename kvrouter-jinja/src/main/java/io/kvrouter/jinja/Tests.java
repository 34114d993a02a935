package io.kvrouter.jinja;

import io.kvrouter.jinja.Node.TestFn;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntFunction;
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
    tests.put("string", (v, a) -> Markup.text(v) != null);
    tests.put("number", (v, a) -> Py.isNumber(v));
    tests.put("integer", (v, a) -> v instanceof Long || v instanceof BigInteger);
    tests.put("float", (v, a) -> v instanceof Double);
    tests.put("boolean", (v, a) -> v instanceof Boolean);
    tests.put("true", (v, a) -> Boolean.TRUE.equals(v));
    tests.put("false", (v, a) -> Boolean.FALSE.equals(v));
    tests.put("mapping", (v, a) -> v instanceof Map);
    tests.put("iterable", (v, a) -> Py.isIterable(v));
    // Jinja2: len(value) and value.__getitem__ work, which dict views do not have
    tests.put(
        "sequence",
        (v, a) ->
            Markup.text(v) != null
                || Py.isListOrTuple(v)
                || v instanceof PyRange
                || v instanceof Map);
    tests.put("callable", (v, a) -> v instanceof PyCallable);
    // str(value).islower(), whatever the value
    tests.put("lower", (v, a) -> StrMethods.isLower(Py.str(v)));
    tests.put("upper", (v, a) -> StrMethods.isUpper(Py.str(v)));
    // value % n == r, as Jinja2 writes them (3.5 is not odd, '%s' % ... formats)
    tests.put("odd", (v, a) -> Py.eq(Py.arith("%", v, 2L), 1L));
    tests.put("even", (v, a) -> Py.eq(Py.arith("%", v, 2L), 0L));
    tests.put("divisibleby", (v, a) -> Py.eq(Py.arith("%", v, a.get(0)), 0L));
    tests.put("escaped", (v, a) -> v instanceof Markup);
    tests.put("sameas", (v, a) -> sameas(v, a.get(0)));
    TestFn eq = (v, a) -> Py.eq(v, a.get(0));
    TestFn ne = (v, a) -> !Py.eq(v, a.get(0));
    for (String n : new String[] {"eq", "equalto", "=="}) {
      tests.put(n, eq);
    }
    for (String n : new String[] {"ne", "!="}) {
      tests.put(n, ne);
    }
    TestFn lt = (v, a) -> Py.compare(v, a.get(0), "<") < 0;
    TestFn le = (v, a) -> Py.compare(v, a.get(0), "<=") <= 0;
    TestFn gt = (v, a) -> Py.compare(v, a.get(0), ">") > 0;
    TestFn ge = (v, a) -> Py.compare(v, a.get(0), ">=") >= 0;
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
    tests.put("in", (v, a) -> Py.contains(a.get(0), v));
    tests.put("filter", (v, a) -> isFilter.test(Py.str(v)));
    tests.put("test", (v, a) -> tests.containsKey(Py.str(v)));

    // A wrong argument count fails with the TypeError of the Python function behind the test.
    for (String name :
        new String[] {
          "defined",
          "undefined",
          "none",
          "string",
          "number",
          "integer",
          "float",
          "boolean",
          "true",
          "false",
          "mapping",
          "iterable",
          "sequence",
          "lower",
          "upper",
          "odd",
          "even",
          "escaped"
        }) {
      function(name, 0, "value");
    }
    function("divisibleby", 0, "value", "num");
    function("sameas", 0, "value", "other");
    function("in", 0, "value", "seq");
    function("filter", 1, "env", "value");
    function("test", 1, "env", "value");
    arity("callable", 1, given -> "callable() takes exactly one argument (" + given + " given)");
    String[][] operators = {
      {"eq", "equalto", "=="},
      {"ne", "!="},
      {"lt", "lessthan", "<"},
      {"le", "<="},
      {"gt", "greaterthan", ">"},
      {"ge", ">="}
    };
    for (String[] names : operators) {
      for (String name : names) {
        arity(name, 2, given -> names[0] + " expected 2 arguments, got " + given);
      }
    }
  }

  /** A test implemented by {@code def test_<name>(params)}, {@code hidden} of them implicit. */
  private void function(String name, int hidden, String... params) {
    String fn = "test_" + name + "()";
    int n = params.length;
    arity(
        name,
        n - hidden,
        given ->
            given > n - hidden
                ? fn
                    + " takes "
                    + n
                    + " positional argument"
                    + (n == 1 ? "" : "s")
                    + " but "
                    + (given + hidden)
                    + " were given"
                : fn + " missing 1 required positional argument: '" + params[n - 1] + "'");
  }

  /** Wraps the test so that other than {@code count} arguments (value included) fail. */
  private void arity(String name, int count, IntFunction<String> message) {
    TestFn fn = tests.get(name);
    tests.put(
        name,
        (v, a) -> {
          if (a.size() + 1 != count) {
            throw TemplateError.typeError(message.apply(a.size() + 1));
          }
          return fn.test(v, a);
        });
  }

  /**
   * Python's {@code value is other}. None and the booleans are singletons, ints from -5 to 256, the
   * empty string and tuple and one-character Latin-1 strings are cached by CPython: for those the
   * answer is certain. Other equal ints, floats, strings and tuples may or may not be the same
   * object in CPython (interning, constant folding), so that fails; distinct containers and objects
   * are compared by identity, as Python does.
   */
  static boolean sameas(Object v, Object o) {
    if (v == null || o == null || v instanceof Boolean || o instanceof Boolean) {
      return v == null ? o == null : v.equals(o);
    }
    boolean immutable =
        v instanceof Long
            || v instanceof BigInteger
            || v instanceof Double
            || v instanceof String
            || v instanceof PyTuple;
    if (!immutable) {
      return v == o;
    }
    if (!Py.typeName(v).equals(Py.typeName(o)) || !Py.eq(v, o)) {
      return false;
    }
    if ((v instanceof Long l && l >= -5 && l <= 256)
        || (v instanceof String s && (s.isEmpty() || (s.length() == 1 && s.charAt(0) < 256)))
        || (v instanceof PyTuple t && t.isEmpty())
        || (v == o && (v instanceof Double || v instanceof PyTuple))) {
      return true;
    }
    throw TemplateError.unsupported(
        "the sameas test on two equal "
            + Py.typeName(v)
            + " values (whether Python shares one object for them is up to CPython)");
  }
}
