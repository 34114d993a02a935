package io.kvrouter.jinja;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Python value semantics over Java values: {@code null} is None, {@link Undefined} is Jinja2's
 * undefined, {@link Boolean}, {@link Long} or beyond 64 bits {@link BigInteger} (int, see {@link
 * PyInt}), {@link Double} (float), {@link String}, {@link List} (list and tuple), {@link Map}
 * (dict, insertion-ordered), {@link Namespace} and {@link PyCallable}. Other integral numbers are
 * accepted as input and normalized on the way in.
 */
final class Py {
  private Py() {}

  /** Converts caller-supplied values (Integer, arrays, ...) into the value model, recursively. */
  static Object normalize(Object v) {
    if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    }
    if (v instanceof Float f) {
      return f.doubleValue();
    }
    if (v instanceof BigDecimal d) {
      return d.doubleValue();
    }
    if (v instanceof BigInteger b) {
      return PyInt.of(b);
    }
    if (v instanceof Character c) {
      return c.toString();
    }
    if (v instanceof Map<?, ?> m) {
      Map<Object, Object> copy = new java.util.LinkedHashMap<>();
      for (Map.Entry<?, ?> e : m.entrySet()) {
        DictKeys.put(copy, normalize(e.getKey()), normalize(e.getValue()));
      }
      return copy;
    }
    if (v instanceof Collection<?> c) {
      List<Object> copy = new ArrayList<>(c.size());
      for (Object o : c) {
        copy.add(normalize(o));
      }
      return copy;
    }
    if (v instanceof Object[] a) {
      return normalize(java.util.Arrays.asList(a));
    }
    if (v == null
        || v instanceof String
        || v instanceof Boolean
        || v instanceof Long
        || v instanceof Double
        || v instanceof PyCallable
        || v instanceof Namespace) {
      return v;
    }
    throw TemplateError.unsupported(
        "a context value of type "
            + v.getClass().getName()
            + " (use null, Boolean, a number, String, List or Map)");
  }

  static String typeName(Object v) {
    if (v == null) {
      return "NoneType";
    }
    if (v instanceof Boolean) {
      return "bool";
    }
    if (v instanceof Long || v instanceof BigInteger) {
      return "int";
    }
    if (v instanceof Double) {
      return "float";
    }
    if (v instanceof String) {
      return "str";
    }
    if (v instanceof PyTuple) {
      return "tuple";
    }
    if (v instanceof PyRange) {
      return "range";
    }
    if (v instanceof DictView d) {
      return d.kind;
    }
    if (v instanceof List) {
      return "list";
    }
    if (v instanceof Map) {
      return "dict";
    }
    if (v instanceof Undefined) {
      return "Undefined";
    }
    if (v instanceof Loop) {
      return "LoopContext";
    }
    if (v instanceof Namespace) {
      return "Namespace";
    }
    if (v instanceof Macro) {
      return "Macro";
    }
    if (v instanceof Markup) {
      return "Markup";
    }
    if (v instanceof PyIterator it) {
      return it.typeName();
    }
    if (v instanceof PyCallable) {
      return "function";
    }
    return v.getClass().getSimpleName();
  }

  /** How Jinja2 names an object in an undefined hint: {@code 'dict object'}. */
  static String objectName(Object v) {
    return v == null ? "None" : typeName(v) + " object";
  }

  static boolean truthy(Object v) {
    if (v == null || v instanceof Undefined) {
      return false;
    }
    if (v instanceof Boolean b) {
      return b;
    }
    if (v instanceof Long l) {
      return l != 0;
    }
    if (v instanceof BigInteger) {
      return true; // never zero: zero is a Long
    }
    if (v instanceof Double d) {
      return d != 0.0;
    }
    if (v instanceof String s) {
      return !s.isEmpty();
    }
    if (v instanceof Markup m) {
      return !m.html().isEmpty();
    }
    if (v instanceof Collection<?> c) {
      return !c.isEmpty();
    }
    if (v instanceof Map<?, ?> m) {
      return !m.isEmpty();
    }
    return true;
  }

  /** Python's {@code str(v)}, with Undefined printing as "". */
  static String str(Object v) {
    if (v instanceof String s) {
      return s;
    }
    if (v == null) {
      return "None";
    }
    if (v instanceof Boolean b) {
      return b ? "True" : "False";
    }
    if (v instanceof Long) {
      return v.toString();
    }
    if (v instanceof BigInteger b) {
      return PyInt.str(b);
    }
    if (v instanceof Double d) {
      return floatRepr(d);
    }
    if (v instanceof Undefined) {
      return "";
    }
    if (v instanceof List || v instanceof Map) {
      return repr(v);
    }
    if (v instanceof PyCallable && !(v instanceof Macro)) {
      throw TemplateError.unsupported(
          "printing " + v + " (Python prints a function's memory address)");
    }
    if (v instanceof PyIterator it) {
      throw TemplateError.unsupported(
          "printing a " + it.typeName() + " (Python prints its memory address)");
    }
    return v.toString();
  }

  static void appendStr(StringBuilder sb, Object v) {
    if (v instanceof String s) {
      sb.append(s);
    } else {
      sb.append(str(v));
    }
  }

  private static final String PRINTED = "a printed list or dict";

  /** Python's {@code repr(v)}. */
  static String repr(Object v) {
    StringBuilder sb = new StringBuilder();
    repr(sb, v, 0);
    return sb.toString();
  }

  private static void repr(StringBuilder sb, Object v, int depth) {
    Limits.checkDataDepth(depth);
    if (v instanceof String s) {
      stringRepr(sb, s);
    } else if (v instanceof Undefined) {
      sb.append("Undefined");
    } else if (v instanceof Markup m) {
      sb.append("Markup(");
      stringRepr(sb, m.html());
      sb.append(')');
    } else if (v instanceof PyRange) {
      sb.append(v);
    } else if (v instanceof DictView d) {
      sb.append(d.kind).append('(');
      repr(sb, new ArrayList<>(d), depth);
      sb.append(')');
    } else if (v instanceof PyTuple t) {
      sb.append('(');
      for (int i = 0; i < t.size(); i++) {
        if (i > 0) {
          sb.append(", ");
        }
        repr(sb, t.get(i), depth + 1);
        Limits.checkBuilt(sb, PRINTED);
      }
      sb.append(t.size() == 1 ? ",)" : ")");
    } else if (v instanceof List<?> l) {
      sb.append('[');
      for (int i = 0; i < l.size(); i++) {
        if (i > 0) {
          sb.append(", ");
        }
        repr(sb, l.get(i), depth + 1);
        Limits.checkBuilt(sb, PRINTED);
      }
      sb.append(']');
    } else if (v instanceof Map<?, ?> m) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!first) {
          sb.append(", ");
        }
        first = false;
        repr(sb, e.getKey(), depth + 1);
        sb.append(": ");
        repr(sb, e.getValue(), depth + 1);
        Limits.checkBuilt(sb, PRINTED);
      }
      sb.append('}');
    } else {
      sb.append(str(v));
    }
  }

  private static void stringRepr(StringBuilder sb, String s) {
    char q = s.indexOf('\'') >= 0 && s.indexOf('"') < 0 ? '"' : '\'';
    sb.append(q);
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      i += Character.charCount(cp);
      switch (cp) {
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (cp == q) {
            sb.append('\\').append(q);
          } else if (cp < 0x20 || cp == 0x7f) {
            sb.append(String.format("\\x%02x", cp));
          } else {
            sb.appendCodePoint(cp);
          }
        }
      }
    }
    sb.append(q);
  }

  /** Python's {@code repr(float)}: shortest round-trip digits, {@code 1.0}, {@code 1e+16}. */
  static String floatRepr(double d) {
    if (Double.isNaN(d)) {
      return "nan";
    }
    if (Double.isInfinite(d)) {
      return d > 0 ? "inf" : "-inf";
    }
    if (d == 0) {
      return (1 / d < 0) ? "-0.0" : "0.0";
    }
    BigDecimal bd = shortestRoundTrip(d).stripTrailingZeros();
    int exp = bd.precision() - bd.scale() - 1;
    if (exp >= -4 && exp < 16) {
      String plain = bd.toPlainString();
      return plain.contains(".") ? plain : plain + ".0";
    }
    String digits = bd.unscaledValue().abs().toString();
    StringBuilder sb = new StringBuilder();
    if (d < 0) {
      sb.append('-');
    }
    sb.append(digits.charAt(0));
    if (digits.length() > 1) {
      sb.append('.').append(digits, 1, digits.length());
    }
    sb.append('e').append(exp < 0 ? '-' : '+');
    if (Math.abs(exp) < 10) {
      sb.append('0');
    }
    sb.append(Math.abs(exp));
    return sb.toString();
  }

  // ---- equality and ordering ----

  static boolean eq(Object a, Object b) {
    return eq(a, b, 0);
  }

  private static boolean eq(Object a, Object b, int depth) {
    Limits.checkDataDepth(depth);
    if (a == b) {
      return true;
    }
    if (a == null || b == null) {
      return false;
    }
    if (a instanceof Undefined || b instanceof Undefined) {
      return a instanceof Undefined && b instanceof Undefined;
    }
    if (isNumber(a) && isNumber(b)) {
      if (a instanceof Double x && b instanceof Double y) {
        return x.doubleValue() == y.doubleValue();
      }
      if (a instanceof Double x) {
        return !x.isNaN() && PyInt.compareWithFloat(b, x) == 0;
      }
      if (b instanceof Double y) {
        return !y.isNaN() && PyInt.compareWithFloat(a, y) == 0;
      }
      return PyInt.compare(a, b) == 0;
    }
    if (Markup.text(a) != null && Markup.text(b) != null) {
      return Markup.text(a).equals(Markup.text(b));
    }
    if (a instanceof List<?> la && b instanceof List<?> lb) {
      String kind = typeName(a);
      if (la.size() != lb.size() || !kind.equals(typeName(b)) || kind.equals("dict_values")) {
        return false; // dict_values equal only themselves
      }
      if (a instanceof DictView) {
        // keys and items views compare as sets
        for (Object o : la) {
          if (!contains(lb, o)) {
            return false;
          }
        }
        return true;
      }
      for (int i = 0; i < la.size(); i++) {
        if (!eq(la.get(i), lb.get(i), depth + 1)) {
          return false;
        }
      }
      return true;
    }
    if (a instanceof Map<?, ?> ma && b instanceof Map<?, ?> mb) {
      if (ma.size() != mb.size()) {
        return false;
      }
      for (Map.Entry<?, ?> e : ma.entrySet()) {
        Object k = DictKeys.find(mb, e.getKey());
        if (k == DictKeys.ABSENT || !eq(e.getValue(), mb.get(k), depth + 1)) {
          return false;
        }
      }
      return true;
    }
    return a.equals(b);
  }

  static int compare(Object a, Object b, String op) {
    return compare(a, b, op, 0);
  }

  private static int compare(Object a, Object b, String op, int depth) {
    Limits.checkDataDepth(depth);
    if (a instanceof Undefined u) {
      throw u.error();
    }
    if (b instanceof Undefined u) {
      throw u.error();
    }
    if (isNumber(a) && isNumber(b)) {
      return compareNumbers(a, b);
    }
    if (Markup.text(a) != null && Markup.text(b) != null) {
      return compareCodePoints(Markup.text(a), Markup.text(b));
    }
    if (isListOrTuple(a) && typeName(a).equals(typeName(b))) {
      List<?> la = (List<?>) a;
      List<?> lb = (List<?>) b;
      for (int i = 0; i < Math.min(la.size(), lb.size()); i++) {
        if (!eq(la.get(i), lb.get(i), depth + 1)) {
          return compare(la.get(i), lb.get(i), op, depth + 1);
        }
      }
      return Integer.compare(la.size(), lb.size());
    }
    if ((a instanceof DictView va && !va.kind.equals("dict_values"))
        || (b instanceof DictView vb && !vb.kind.equals("dict_values"))) {
      throw TemplateError.unsupported("set comparisons of dict keys and items views");
    }
    throw TemplateError.typeError(
        "'"
            + op
            + "' not supported between instances of '"
            + typeName(a)
            + "' and '"
            + typeName(b)
            + "'");
  }

  private static int compareNumbers(Object a, Object b) {
    if (a instanceof Double x && b instanceof Double y) {
      return Double.compare(x, y);
    }
    if (a instanceof Double x) {
      return x.isNaN() ? 1 : -PyInt.compareWithFloat(b, x);
    }
    if (b instanceof Double y) {
      return y.isNaN() ? -1 : PyInt.compareWithFloat(a, y);
    }
    return PyInt.compare(a, b);
  }

  static int compareCodePoints(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }

  static boolean contains(Object container, Object item) {
    String s = Markup.text(container);
    if (s != null) {
      if (Markup.text(item) != null) {
        return s.contains(Markup.text(item));
      }
      if (item instanceof Undefined u) {
        throw u.error();
      }
      throw TemplateError.typeError(
          "'in <string>' requires string as left operand, not " + typeName(item));
    }
    if (container instanceof List<?> || container instanceof PyIterator) {
      // a generator is consumed up to the item found
      for (Iterator<?> it = iterator(container); it.hasNext(); ) {
        if (eq(it.next(), item)) {
          return true;
        }
      }
      return false;
    }
    if (container instanceof Map<?, ?> m) {
      DictKeys.checkHashable(item);
      return DictKeys.find(m, item) != DictKeys.ABSENT;
    }
    if (container instanceof Undefined) {
      return false;
    }
    if (container instanceof Namespace) {
      throw TemplateError.typeError("argument of type 'Namespace' is not iterable");
    }
    throw TemplateError.typeError("argument of type '" + typeName(container) + "' is not iterable");
  }

  // ---- numbers ----

  static boolean isNumber(Object v) {
    return v instanceof Long
        || v instanceof Double
        || v instanceof Boolean
        || v instanceof BigInteger;
  }

  /**
   * An int (or bool) as a long; one beyond 64 bits fails as Python fails to use it as a size or an
   * index ({@code ssize_t}).
   */
  static long toLong(Object v) {
    if (v instanceof Boolean b) {
      return b ? 1 : 0;
    }
    if (v instanceof BigInteger) {
      throw TemplateError.of("OverflowError", "Python int too large to convert to C ssize_t");
    }
    return ((Number) v).longValue();
  }

  static double toDouble(Object v) {
    if (v instanceof Boolean b) {
      return b ? 1 : 0;
    }
    if (v instanceof BigInteger) {
      return PyInt.toDouble(v);
    }
    return ((Number) v).doubleValue();
  }

  private static TemplateError operandError(String op, Object a, Object b) {
    if (a instanceof Undefined u) {
      return u.error();
    }
    if (b instanceof Undefined u) {
      return u.error();
    }
    return TemplateError.typeError(
        "unsupported operand type(s) for "
            + op
            + ": '"
            + typeName(a)
            + "' and '"
            + typeName(b)
            + "'");
  }

  static Object add(Object a, Object b) {
    if ((a instanceof Markup || b instanceof Markup)
        && Markup.text(a) != null
        && Markup.text(b) != null) {
      return Markup.concat(a, b);
    }
    if (a instanceof String sa) {
      if (b instanceof String sb) {
        Limits.checkLength((long) sa.length() + sb.length(), "a concatenation");
        return sa.concat(sb);
      }
      if (b instanceof Undefined u) {
        throw u.error();
      }
      throw TemplateError.typeError(
          "can only concatenate str (not \"" + typeName(b) + "\") to str");
    }
    if (isListOrTuple(a)) {
      List<?> la = (List<?>) a;
      if (isListOrTuple(b) && (a instanceof PyTuple) == (b instanceof PyTuple)) {
        List<?> lb = (List<?>) b;
        List<Object> r =
            new ArrayList<>(Limits.checkLength((long) la.size() + lb.size(), "a concatenation"));
        r.addAll(la);
        r.addAll(lb);
        return a instanceof PyTuple ? new PyTuple(r.toArray()) : r;
      }
      if (b instanceof Undefined u) {
        throw u.error();
      }
      throw TemplateError.typeError(
          "can only concatenate "
              + typeName(a)
              + " (not \""
              + typeName(b)
              + "\") to "
              + typeName(a));
    }
    if (isNumber(a) && isNumber(b)) {
      if (a instanceof Double || b instanceof Double) {
        return toDouble(a) + toDouble(b);
      }
      return PyInt.add(a, b);
    }
    throw operandError("+", a, b);
  }

  /**
   * The fewest significant digits that read back as {@code d}, the closest such decimal: what
   * Python's {@code repr} prints. (JDK 17's {@code Double.toString} is not always the shortest.)
   */
  private static BigDecimal shortestRoundTrip(double d) {
    BigDecimal exact = new BigDecimal(d);
    for (int digits = 1; digits < 17; digits++) {
      BigDecimal candidate = exact.round(new MathContext(digits, RoundingMode.HALF_EVEN));
      if (candidate.doubleValue() == d) {
        return candidate;
      }
    }
    return exact.round(new MathContext(17, RoundingMode.HALF_EVEN));
  }

  /** How many times {@code count} repeats {@code unit} characters or items, within the limit. */
  private static int repetitions(long count, int unit) {
    if (unit == 0 || count <= 0) {
      return 0;
    }
    // beyond MAX_LENGTH times the product fails anyway, below it it cannot overflow
    long total = count > Limits.MAX_LENGTH ? count : count * unit;
    Limits.checkLength(total, "a repetition of " + count + " times " + unit);
    return (int) count;
  }

  /** Python's {@code operator.index}: an int (or bool) where an integer is required. */
  static long index(Object v) {
    if (isInt(v)) {
      return toLong(v);
    }
    throw TemplateError.typeError(
        "'" + typeName(v) + "' object cannot be interpreted as an integer");
  }

  /** The count of a sequence repetition ({@code 'ab' * n}), which must be an int. */
  static long repeatCount(Object v) {
    if (v instanceof BigInteger) {
      throw TemplateError.of("OverflowError", "cannot fit 'int' into an index-sized integer");
    }
    if (isInt(v)) {
      return toLong(v);
    }
    throw TemplateError.typeError(
        "can't multiply sequence by non-int of type '" + typeName(v) + "'");
  }

  private static boolean isSequence(Object v) {
    return v instanceof String || isListOrTuple(v);
  }

  /** A list or a tuple, not one of the other Java Lists (range, dict views). */
  static boolean isListOrTuple(Object v) {
    return v instanceof List && !(v instanceof PyRange) && !(v instanceof DictView);
  }

  static Object arith(String op, Object a, Object b) {
    if ((op.equals("*") && (a instanceof Markup || b instanceof Markup))
        || (op.equals("%") && a instanceof Markup)) {
      throw Markup.unsupported("the operator " + op);
    }
    if (op.equals("*") && !(a instanceof Undefined) && !(b instanceof Undefined)) {
      if (isSequence(b) && !isSequence(a)) {
        return arith(op, b, a);
      }
      if (a instanceof String s) {
        return s.repeat(repetitions(repeatCount(b), s.length()));
      }
      if (isListOrTuple(a)) {
        List<?> l = (List<?>) a;
        int times = repetitions(repeatCount(b), l.size());
        List<Object> r = new ArrayList<>(times * l.size());
        for (int i = 0; i < times; i++) {
          r.addAll(l);
        }
        return a instanceof PyTuple ? new PyTuple(r.toArray()) : r;
      }
    }
    if (op.equals("%") && a instanceof String s) {
      return Printf.format(s, b);
    }
    if (!isNumber(a) || !isNumber(b)) {
      throw operandError(op, a, b);
    }
    boolean f = a instanceof Double || b instanceof Double;
    switch (op) {
      case "-":
        return f ? (Object) (toDouble(a) - toDouble(b)) : PyInt.subtract(a, b);
      case "*":
        return f ? (Object) (toDouble(a) * toDouble(b)) : PyInt.multiply(a, b);
      case "/":
        if (isZero(b)) {
          throw TemplateError.of("ZeroDivisionError", "division by zero");
        }
        return f ? toDouble(a) / toDouble(b) : PyInt.trueDivide(a, b);
      case "//":
        if (isZero(b)) {
          throw TemplateError.of("ZeroDivisionError", "integer division or modulo by zero");
        }
        return f ? (Object) Math.floor(toDouble(a) / toDouble(b)) : PyInt.floorDiv(a, b);
      case "%":
        if (isZero(b)) {
          throw TemplateError.of("ZeroDivisionError", "integer division or modulo by zero");
        }
        if (f) {
          double x = toDouble(a);
          double y = toDouble(b);
          double m = x % y;
          return m != 0 && ((m < 0) != (y < 0)) ? m + y : m;
        }
        return PyInt.mod(a, b);
      case "**":
        if (!f && PyInt.compare(b, 0L) >= 0) {
          return PyInt.pow(a, b);
        }
        return Math.pow(toDouble(a), toDouble(b));
      default:
        throw TemplateError.unsupported("operator " + op);
    }
  }

  private static boolean isZero(Object v) {
    return v instanceof Double d ? d == 0 : !(v instanceof BigInteger) && toLong(v) == 0;
  }

  static boolean isInt(Object v) {
    return v instanceof Long || v instanceof Boolean || v instanceof BigInteger;
  }

  // ---- iteration, length, indexing ----

  /**
   * What {@code for} iterates: list items, dict keys, string characters, what a generator has left
   * (consuming it); Undefined is empty.
   */
  static List<?> iterable(Object v) {
    if (v instanceof List<?> l) {
      return l;
    }
    if (v instanceof PyIterator it) {
      return it.drain();
    }
    if (v instanceof Map<?, ?> m) {
      return new ArrayList<>(m.keySet());
    }
    String s = Markup.text(v);
    if (s != null) {
      // iterating a Markup gives plain one-character strings, as in Python
      List<Object> chars = new ArrayList<>(s.length());
      s.codePoints().forEach(cp -> chars.add(character(cp)));
      return chars;
    }
    if (v instanceof Undefined) {
      return Collections.emptyList();
    }
    throw TemplateError.typeError("'" + typeName(v) + "' object is not iterable");
  }

  /** The one-character strings of Latin-1, shared as CPython shares them. */
  private static final String[] LATIN1 = new String[256];

  static {
    for (int cp = 0; cp < LATIN1.length; cp++) {
      LATIN1[cp] = String.valueOf((char) cp);
    }
  }

  /** The string of one code point: iterating a long string does not allocate one per char. */
  static String character(int cp) {
    return cp < LATIN1.length ? LATIN1[cp] : new String(Character.toChars(cp));
  }

  static int length(Object v) {
    String s = Markup.text(v);
    if (s != null) {
      return s.codePointCount(0, s.length());
    }
    if (v instanceof Collection<?> c) {
      return c.size();
    }
    if (v instanceof Map<?, ?> m) {
      return m.size();
    }
    if (v instanceof Undefined) {
      return 0;
    }
    throw TemplateError.typeError("object of type '" + typeName(v) + "' has no len()");
  }

  static boolean isIterable(Object v) {
    return v instanceof String
        || v instanceof List
        || v instanceof Map
        || v instanceof Undefined
        || v instanceof Markup
        || v instanceof PyIterator;
  }

  /** {@code obj[key]} as Jinja2's sandbox does it: item, then attribute, else Undefined. */
  static Object getItem(Object obj, Object key) {
    if (obj instanceof Undefined u) {
      throw u.error();
    }
    if (obj instanceof Markup) {
      throw Markup.unsupported("indexing");
    }
    if (key instanceof Markup m) {
      key = m.html(); // a str key for Python: same hash, same lookups
    }
    if (obj instanceof Map<?, ?> m) {
      Object k = DictKeys.find(m, key);
      if (k != DictKeys.ABSENT) {
        return m.get(k);
      }
      if (key instanceof String s) {
        return Methods.attribute(obj, s);
      }
      return Undefined.item(obj, key);
    }
    if (key instanceof BigInteger) {
      return Undefined.item(obj, key); // IndexError: cannot fit 'int' into an index-sized integer
    }
    if (obj instanceof List<?> l && !(obj instanceof DictView) && isInt(key)) {
      long i = toLong(key);
      if (i < 0) {
        i += l.size();
      }
      if (i < 0 || i >= l.size()) {
        return Undefined.item(obj, key);
      }
      return l.get((int) i);
    }
    if (obj instanceof String s && isInt(key)) {
      int n = s.codePointCount(0, s.length());
      long i = toLong(key);
      if (i < 0) {
        i += n;
      }
      if (i < 0 || i >= n) {
        return Undefined.item(obj, key);
      }
      int off = s.offsetByCodePoints(0, (int) i);
      return character(s.codePointAt(off));
    }
    if (key instanceof String s) {
      return Methods.attribute(obj, s);
    }
    return Undefined.item(obj, key);
  }

  /** {@code obj.name}: attribute (methods, namespace attributes), then item, else Undefined. */
  static Object getAttr(Object obj, String name) {
    if (obj instanceof Undefined u) {
      throw u.error();
    }
    if (obj instanceof Markup) {
      throw Markup.unsupported("the attribute " + name);
    }
    if (obj instanceof Map<?, ?> m) {
      if (!Methods.isDictMethod(name) && m.containsKey(name)) {
        return m.get(name);
      }
      Object a = Methods.attribute(obj, name);
      return a;
    }
    return Methods.attribute(obj, name);
  }

  /** {@code obj[start:stop:step]}, which Jinja2 compiles to Python's own slicing. */
  static Object slice(Object obj, Object start, Object stop, Object step) {
    if (obj instanceof Undefined u) {
      throw u.error();
    }
    if (obj instanceof Markup) {
      throw Markup.unsupported("slicing");
    }
    // a string is sliced over its code points, without a String per character
    int[] codePoints = obj instanceof String s ? s.codePoints().toArray() : null;
    List<?> items = obj instanceof List<?> l && !(obj instanceof DictView) ? l : null;
    if (codePoints == null && items == null) {
      throw TemplateError.typeError(
          obj instanceof Map
              ? "unhashable type: 'slice'"
              : "'" + typeName(obj) + "' object is not subscriptable");
    }
    long st = step == null ? 1 : PyInt.clamped(step);
    if (st == 0) {
      throw TemplateError.of("ValueError", "slice step cannot be zero");
    }
    int n = codePoints != null ? codePoints.length : items.size();
    long lo;
    long hi;
    if (st > 0) {
      lo = start == null ? 0 : clampIndex(PyInt.clamped(start), n, 0, n);
      hi = stop == null ? n : clampIndex(PyInt.clamped(stop), n, 0, n);
    } else {
      lo = start == null ? n - 1 : clampIndex(PyInt.clamped(start), n, -1, n - 1);
      hi = stop == null ? -1 : clampIndex(PyInt.clamped(stop), n, -1, n - 1);
    }
    if (obj instanceof PyRange r) {
      return new PyRange(r.start + lo * r.step, r.start + hi * r.step, r.step * st, n);
    }
    StringBuilder sb = new StringBuilder();
    List<Object> r = new ArrayList<>();
    for (long i = lo; st > 0 ? i < hi : i > hi; i += st) {
      if (codePoints != null) {
        sb.appendCodePoint(codePoints[(int) i]);
      } else {
        r.add(items.get((int) i));
      }
    }
    if (codePoints != null) {
      return sb.toString();
    }
    return obj instanceof PyTuple ? new PyTuple(r.toArray()) : r;
  }

  private static long clampIndex(long i, int n, long min, long max) {
    if (i < 0) {
      i += n;
    }
    return Math.max(min, Math.min(max, i));
  }

  /** Python's {@code iter(v)}: a generator is its own iterator, consumed as it goes. */
  static Iterator<?> iterator(Object v) {
    return v instanceof PyIterator it ? it : iterable(v).iterator();
  }

  /** Whether Python's {@code reversed(v)} works: a sequence, a dict or a dict view. */
  static boolean isReversible(Object v) {
    return v instanceof List
        || v instanceof Map
        || v instanceof Undefined
        || Markup.text(v) != null;
  }

  /** Python's {@code reversed(v)}, an iterator named as Python names it. */
  static PyIterator reversed(Object v) {
    if (!isReversible(v)) {
      throw TemplateError.typeError("'" + typeName(v) + "' object is not reversible");
    }
    List<Object> items = new ArrayList<>(iterable(v));
    Collections.reverse(items);
    String type;
    if (v instanceof DictView d) {
      type =
          switch (d.kind) {
            case "dict_values" -> "dict_reversevalueiterator";
            case "dict_items" -> "dict_reverseitemiterator";
            default -> "dict_reversekeyiterator";
          };
    } else if (v instanceof Map) {
      type = "dict_reversekeyiterator";
    } else if (v instanceof PyRange) {
      type = "range_iterator";
    } else if (isListOrTuple(v) && !(v instanceof PyTuple)) {
      type = "list_reverseiterator";
    } else {
      type = "reversed"; // tuples, strings, Undefined
    }
    return PyIterator.over(type, items);
  }
}
