package io.kvrouter.preprocess.template.jinja;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The global functions of Hugging Face's environment but {@code strftime_now}. */
final class Globals {
  private Globals() {}

  /** The global functions: {@code range}, {@code dict}, {@code namespace}, ... */
  static Map<String, Object> create() {
    Map<String, Object> g = new LinkedHashMap<>();
    g.put("range", (PyCallable) (a, kw) -> {
      long start = 0;
      long stop;
      long step = 1;
      if (a.size() == 1) {
        stop = Py.toLong(a.get(0));
      } else {
        start = Py.toLong(Methods.arg(a, 0, "start"));
        stop = Py.toLong(Methods.arg(a, 1, "stop"));
        if (a.size() > 2) {
          step = Py.toLong(a.get(2));
        }
      }
      if (step == 0) {
        throw TemplateError.of("ValueError", "range() arg 3 must not be zero");
      }
      List<Object> r = new ArrayList<>();
      for (long x = start; step > 0 ? x < stop : x > stop; x += step) {
        if (r.size() >= 100_000) {
          throw TemplateError.of("OverflowError",
              "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
        }
        r.add(x);
      }
      return r;
    });
    g.put("dict", (PyCallable) (a, kw) -> {
      Map<Object, Object> m = new LinkedHashMap<>();
      if (!a.isEmpty()) {
        if (a.get(0) instanceof Map<?, ?> src) {
          m.putAll(src);
        } else {
          for (Object pair : Py.iterable(a.get(0))) {
            List<?> p = Py.iterable(pair);
            m.put(p.get(0), p.get(1));
          }
        }
      }
      m.putAll(kw);
      return m;
    });
    g.put("namespace", (PyCallable) (a, kw) -> {
      Namespace ns = new Namespace();
      if (!a.isEmpty() && a.get(0) instanceof Map<?, ?> src) {
        for (Map.Entry<?, ?> e : src.entrySet()) {
          ns.attrs.put(Py.str(e.getKey()), e.getValue());
        }
      }
      ns.attrs.putAll(kw);
      return ns;
    });
    g.put("raise_exception", (PyCallable) (a, kw) -> {
      throw TemplateError.raised(Py.str(Methods.arg(a, 0, "message")));
    });
    return g;
  }
}
