package io.kvrouter.jinja;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Python's {@code json.dumps(x, ensure_ascii=..., indent=..., separators=..., sort_keys=...)},
 * which is Hugging Face's {@code tojson} filter: item separator {@code ", "} ({@code ","} with an
 * indent), key separator {@code ": "}, insertion order unless sorted, Python's escapes.
 */
final class Json {
  private final boolean ensureAscii;
  private final String indent;
  private final String itemSep;
  private final String keySep;
  private final boolean sortKeys;

  Json(boolean ensureAscii, String indent, String itemSep, String keySep, boolean sortKeys) {
    this.ensureAscii = ensureAscii;
    this.indent = indent;
    this.itemSep = itemSep != null ? itemSep : (indent != null ? "," : ", ");
    this.keySep = keySep != null ? keySep : ": ";
    this.sortKeys = sortKeys;
  }

  String dumps(Object v) {
    StringBuilder sb = new StringBuilder();
    write(sb, v, 0);
    return sb.toString();
  }

  private void newline(StringBuilder sb, int depth) {
    sb.append('\n');
    for (int i = 0; i < depth; i++) {
      sb.append(indent);
      Limits.checkBuilt(sb, TOJSON);
    }
  }

  private static final String TOJSON = "filter tojson";

  private void write(StringBuilder sb, Object v, int depth) {
    Limits.checkDataDepth(depth);
    if (v == null) {
      sb.append("null");
    } else if (v instanceof Boolean b) {
      sb.append(b ? "true" : "false");
    } else if (v instanceof Long) {
      sb.append(v);
    } else if (v instanceof BigInteger b) {
      sb.append(PyInt.str(b));
    } else if (v instanceof Double d) {
      if (Double.isNaN(d)) {
        sb.append("NaN");
      } else if (Double.isInfinite(d)) {
        sb.append(d > 0 ? "Infinity" : "-Infinity");
      } else {
        sb.append(Py.floatRepr(d));
      }
    } else if (Markup.text(v) != null) {
      string(sb, Markup.text(v));
    } else if (Py.isListOrTuple(v)) {
      List<?> l = (List<?>) v;
      if (l.isEmpty()) {
        sb.append("[]");
        return;
      }
      sb.append('[');
      for (int i = 0; i < l.size(); i++) {
        if (i > 0) {
          sb.append(itemSep);
        }
        if (indent != null) {
          newline(sb, depth + 1);
        }
        write(sb, l.get(i), depth + 1);
        Limits.checkBuilt(sb, TOJSON);
      }
      if (indent != null) {
        newline(sb, depth);
      }
      sb.append(']');
    } else if (v instanceof Map<?, ?> m) {
      if (m.isEmpty()) {
        sb.append("{}");
        return;
      }
      List<Map.Entry<?, ?>> entries = new ArrayList<>(m.entrySet());
      if (sortKeys) {
        Collections.sort(entries, (a, b) -> Py.compare(a.getKey(), b.getKey(), "<"));
      }
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : entries) {
        if (!first) {
          sb.append(itemSep);
        }
        first = false;
        if (indent != null) {
          newline(sb, depth + 1);
        }
        string(sb, key(e.getKey()));
        sb.append(keySep);
        write(sb, e.getValue(), depth + 1);
        Limits.checkBuilt(sb, TOJSON);
      }
      if (indent != null) {
        newline(sb, depth);
      }
      sb.append('}');
    } else {
      throw TemplateError.typeError(
          "Object of type "
              + (v instanceof Undefined ? "Undefined" : Py.typeName(v))
              + " is not JSON serializable");
    }
  }

  private static String key(Object k) {
    if (k instanceof String s) {
      return s;
    }
    if (k == null) {
      return "null";
    }
    if (k instanceof Boolean b) {
      return b ? "true" : "false";
    }
    if (k instanceof Long || k instanceof BigInteger || k instanceof Double) {
      return Py.str(k);
    }
    throw TemplateError.typeError(
        "keys must be str, int, float, bool or None, not " + Py.typeName(k));
  }

  private void string(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        case '\b' -> sb.append("\\b");
        case '\f' -> sb.append("\\f");
        default -> {
          if (c < 0x20 || (ensureAscii && c > 0x7e)) {
            sb.append(String.format("\\u%04x", (int) c));
            Limits.checkBuilt(sb, TOJSON);
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }
}
