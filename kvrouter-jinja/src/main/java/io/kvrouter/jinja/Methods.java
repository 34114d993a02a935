package io.kvrouter.jinja;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Attributes of values: Python's non-mutating {@code str}, {@code dict} and {@code list} methods as
 * bound methods, namespace attributes, the {@code loop} object. Mutating methods exist but raise
 * {@code SecurityError} when called, as in Jinja2's {@code ImmutableSandboxedEnvironment}.
 */
final class Methods {
  private Methods() {}

  private static final Set<String> DICT_METHODS =
      Set.of(
          "items",
          "keys",
          "values",
          "get",
          "copy",
          "pop",
          "popitem",
          "update",
          "setdefault",
          "clear",
          "fromkeys");
  private static final Set<String> DICT_MUTATORS =
      Set.of("pop", "popitem", "update", "setdefault", "clear");
  private static final Set<String> LIST_METHODS =
      Set.of(
          "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "copy",
          "index", "count");
  private static final Set<String> LIST_MUTATORS =
      Set.of("append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse");

  /** What tuples and ranges have of the list methods. */
  private static final Set<String> SEQUENCE_METHODS = Set.of("index", "count");

  private static final Set<String> STR_METHODS =
      Set.of(
          "strip",
          "lstrip",
          "rstrip",
          "split",
          "rsplit",
          "splitlines",
          "startswith",
          "endswith",
          "upper",
          "lower",
          "title",
          "capitalize",
          "replace",
          "join",
          "format",
          "count",
          "find",
          "rfind",
          "index",
          "rindex",
          "isdigit",
          "isalpha",
          "isalnum",
          "isspace",
          "isupper",
          "islower",
          "swapcase",
          "removeprefix",
          "removesuffix",
          "partition",
          "rpartition",
          "zfill",
          "center",
          "ljust",
          "rjust");

  static boolean isDictMethod(String name) {
    return DICT_METHODS.contains(name);
  }

  /** A bound method: {@code obj.name} waiting for its call. */
  record Bound(Object self, String name) implements PyCallable {
    @Override
    public Object call(List<Object> args, Map<String, Object> kwargs) {
      return invoke(self, name, args, kwargs);
    }

    @Override
    public String toString() {
      return "<built-in method " + name + " of " + Py.typeName(self) + " object>";
    }
  }

  static Object attribute(Object obj, String name) {
    if (obj instanceof Markup) {
      throw Markup.unsupported("the method " + name);
    }
    if (obj instanceof String && STR_METHODS.contains(name)) {
      return new Bound(obj, name);
    }
    if (obj instanceof Map<?, ?> && DICT_METHODS.contains(name)) {
      return new Bound(obj, name);
    }
    if (obj instanceof PyRange r) {
      switch (name) {
        case "start":
          return r.start;
        case "stop":
          return r.stop;
        case "step":
          return r.step;
        default:
          break;
      }
    }
    if (obj instanceof GroupTuple g && g.field(name) != null) {
      return g.field(name);
    }
    boolean sequence = obj instanceof PyTuple || obj instanceof PyRange;
    if (sequence
        ? SEQUENCE_METHODS.contains(name)
        : Py.isListOrTuple(obj) && LIST_METHODS.contains(name)) {
      return new Bound(obj, name);
    }
    if (obj instanceof Namespace ns) {
      Object v = ns.attrs.get(name);
      return v != null || ns.attrs.containsKey(name) ? v : Undefined.attr(obj, name);
    }
    if (obj instanceof Loop loop) {
      return loop.attribute(name);
    }
    if (obj instanceof Macro macro) {
      return macro.attribute(name);
    }
    return Undefined.attr(obj, name);
  }

  static Object invoke(Object self, String name, List<Object> a, Map<String, Object> kw) {
    if (self instanceof String s) {
      return StrMethods.call(s, name, a, kw);
    }
    if (self instanceof Map<?, ?> m) {
      if (DICT_MUTATORS.contains(name)) {
        throw unsafe(name, "dict");
      }
      switch (name) {
        case "items":
          return new DictView("dict_items", pairs(m));
        case "keys":
          return new DictView("dict_keys", new ArrayList<>(m.keySet()));
        case "values":
          return new DictView("dict_values", new ArrayList<>(m.values()));
        case "get":
          {
            Object key = arg(a, 0, "key");
            DictKeys.checkHashable(key);
            Object k = DictKeys.find(m, key);
            if (k != DictKeys.ABSENT) {
              return m.get(k);
            }
            return a.size() > 1 ? a.get(1) : null;
          }
        case "copy":
          return new LinkedHashMap<>(m);
        default:
          break;
      }
    }
    if (self instanceof List<?> l) {
      if (LIST_MUTATORS.contains(name)) {
        throw unsafe(name, "list");
      }
      switch (name) {
        case "copy":
          return new ArrayList<>(l);
        case "count":
          {
            long n = 0;
            for (Object o : l) {
              if (Py.eq(o, arg(a, 0, "value"))) {
                n++;
              }
            }
            return n;
          }
        case "index":
          {
            for (int i = 0; i < l.size(); i++) {
              if (Py.eq(l.get(i), arg(a, 0, "value"))) {
                return (long) i;
              }
            }
            throw TemplateError.of(
                "ValueError",
                self instanceof PyTuple
                    ? "tuple.index(x): x not in tuple"
                    : Py.repr(a.get(0)) + " is not in " + Py.typeName(self));
          }
        default:
          break;
      }
    }
    throw TemplateError.unsupported("method " + Py.typeName(self) + "." + name);
  }

  static List<Object> pair(Object k, Object v) {
    return new PyTuple(k, v);
  }

  /** The (key, value) tuples of {@code m}, in order. */
  static List<Object> pairs(Map<?, ?> m) {
    List<Object> r = new ArrayList<>(m.size());
    for (Map.Entry<?, ?> e : m.entrySet()) {
      r.add(pair(e.getKey(), e.getValue()));
    }
    return r;
  }

  static TemplateError unsafe(String name, String type) {
    return TemplateError.of(
        "SecurityError", "access to attribute '" + name + "' of '" + type + "' object is unsafe.");
  }

  static Object arg(List<Object> a, int i, String name) {
    if (i >= a.size()) {
      throw TemplateError.typeError(
          "missing required argument '" + name + "' (pos " + (i + 1) + ")");
    }
    return a.get(i);
  }
}
