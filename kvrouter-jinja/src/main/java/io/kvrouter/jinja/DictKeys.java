package io.kvrouter.jinja;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Python's dict keys over Java maps: equal numbers are one key whatever their type ({@code 1},
 * {@code 1.0} and {@code True}; {@code 0}, {@code 0.0}, {@code -0.0} and {@code False}), the key
 * first stored is kept, and lists and dicts cannot be keys.
 */
final class DictKeys {
  private DictKeys() {}

  /** What {@link #find} returns when the map holds no such key (None is a valid key). */
  static final Object ABSENT = new Object();

  /** The key of {@code m} that Python takes as {@code key}, or {@link #ABSENT}. */
  static Object find(Map<?, ?> m, Object key) {
    if (key instanceof Markup markup) {
      key = markup.html(); // a str subclass: same hash and equality as its text
    }
    if (m.containsKey(key)) {
      return key;
    }
    for (Object alias : aliases(key)) {
      if (m.containsKey(alias)) {
        return alias;
      }
    }
    return ABSENT;
  }

  /** {@code m[key] = value} as Python's dict does it: an equal key keeps its place and type. */
  static void put(Map<Object, Object> m, Object key, Object value) {
    if (key instanceof Markup) {
      throw Markup.unsupported("a dict key");
    }
    checkHashable(key);
    Object existing = find(m, key);
    m.put(existing == ABSENT ? key : existing, value);
  }

  /** Python's {@code TypeError} for a key that cannot be hashed: a list, a dict, a view. */
  static void checkHashable(Object key) {
    if (key instanceof PyTuple t) {
      for (Object o : t) {
        checkHashable(o);
      }
    } else if ((key instanceof List && !(key instanceof PyRange)) || key instanceof Map) {
      throw TemplateError.typeError("unhashable type: '" + Py.typeName(key) + "'");
    }
  }

  /** The other Java values of a number key that Python holds equal to it. */
  private static List<Object> aliases(Object key) {
    if (!Py.isNumber(key)) {
      return List.of();
    }
    Object whole = null;
    if (key instanceof Boolean b) {
      whole = b ? 1L : 0L;
    } else if (!(key instanceof Double d)) {
      whole = key;
    } else if (Double.isFinite(d) && d == Math.rint(d)) {
      whole = PyInt.of(new BigDecimal(d).toBigInteger());
    }
    List<Object> r = new ArrayList<>(4);
    if (whole != null) {
      r.add(whole);
      if (whole.equals(0L) || whole.equals(1L)) {
        r.add(whole.equals(1L));
      }
      double asDouble = PyInt.big(whole).doubleValue();
      if (Double.isFinite(asDouble)
          && new BigDecimal(asDouble).toBigInteger().equals(PyInt.big(whole))) {
        r.add(asDouble);
        if (whole.equals(0L)) {
          r.add(-0.0);
        }
      }
    }
    return r;
  }
}
