package io.kvrouter.jinja;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The global functions of Hugging Face's environment but {@code strftime_now}. */
final class Globals {
  private Globals() {}

  /** The global functions: {@code range}, {@code dict}, {@code namespace}, ... */
  static Map<String, Object> create() {
    Map<String, Object> g = new LinkedHashMap<>();
    g.put("range", (PyCallable) Globals::range);
    g.put("dict", (PyCallable) Globals::dict);
    g.put(
        "namespace",
        (PyCallable)
            (a, kw) -> {
              Namespace ns = new Namespace();
              if (!a.isEmpty() && a.get(0) instanceof Map<?, ?> src) {
                for (Map.Entry<?, ?> e : src.entrySet()) {
                  ns.attrs.put(Py.str(e.getKey()), e.getValue());
                }
              }
              ns.attrs.putAll(kw);
              return ns;
            });
    g.put(
        "raise_exception",
        (PyCallable)
            (a, kw) -> {
              throw TemplateError.raised(Py.str(Methods.arg(a, 0, "message")));
            });
    return g;
  }

  /** Jinja2's sandbox refuses longer ranges. */
  private static final int MAX_RANGE = 100_000;

  private static Object range(List<Object> a, Map<String, Object> kw) {
    if (!kw.isEmpty()) {
      throw TemplateError.typeError("range() takes no keyword arguments");
    }
    if (a.isEmpty() || a.size() > 3) {
      throw TemplateError.typeError(
          "range expected at "
              + (a.isEmpty() ? "least 1" : "most 3")
              + " argument"
              + (a.isEmpty() ? "" : "s")
              + ", got "
              + a.size());
    }
    long start = a.size() == 1 ? 0 : Py.index(a.get(0));
    long stop = Py.index(a.get(a.size() == 1 ? 0 : 1));
    long step = a.size() == 3 ? Py.index(a.get(2)) : 1;
    if (step == 0) {
      throw TemplateError.of("ValueError", "range() arg 3 must not be zero");
    }
    return new PyRange(start, stop, step, MAX_RANGE);
  }

  private static Object dict(List<Object> a, Map<String, Object> kw) {
    if (a.size() > 1) {
      throw TemplateError.typeError("dict expected at most 1 argument, got " + a.size());
    }
    Map<Object, Object> m = new LinkedHashMap<>();
    if (!a.isEmpty() && a.get(0) instanceof Map<?, ?> src) {
      m.putAll(src);
    } else if (!a.isEmpty()) {
      int i = 0;
      for (Object pair : Py.iterable(a.get(0))) {
        List<?> p = Py.iterable(pair);
        if (p.size() != 2) {
          throw TemplateError.of(
              "ValueError",
              "dictionary update sequence element #"
                  + i
                  + " has length "
                  + p.size()
                  + "; 2 is required");
        }
        DictKeys.put(m, p.get(0), p.get(1));
        i++;
      }
    }
    for (Map.Entry<String, Object> e : kw.entrySet()) {
      DictKeys.put(m, e.getKey(), e.getValue());
    }
    return m;
  }
}
