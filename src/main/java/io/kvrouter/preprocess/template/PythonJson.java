package io.kvrouter.preprocess.template;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Serializes template values the way Python's {@code json.dumps} does, which is what Hugging Face's
 * {@code tojson} filter calls ({@code ensure_ascii=False} by default): {@code ", "} and {@code ":
 * "} separators, insertion-ordered keys, Python's escapes.
 */
final class PythonJson {

  private final boolean ensureAscii;
  private final Integer indent;
  private final String itemSeparator;
  private final String keySeparator;
  private final boolean sortKeys;

  PythonJson(
      boolean ensureAscii,
      Integer indent,
      String itemSeparator,
      String keySeparator,
      boolean sortKeys) {
    this.ensureAscii = ensureAscii;
    this.indent = indent;
    this.itemSeparator = itemSeparator != null ? itemSeparator : (indent != null ? "," : ", ");
    this.keySeparator = keySeparator != null ? keySeparator : ": ";
    this.sortKeys = sortKeys;
  }

  /** {@code json.dumps(value, ensure_ascii=False)}. */
  static String dumps(Object value) {
    return new PythonJson(false, null, null, null, false).write(value);
  }

  String write(Object value) {
    StringBuilder sb = new StringBuilder();
    write(sb, value, 0);
    return sb.toString();
  }

  private void write(StringBuilder sb, Object v, int depth) {
    if (v == null) {
      sb.append("null");
    } else if (v instanceof Boolean b) {
      sb.append(b ? "true" : "false");
    } else if (v instanceof Byte
        || v instanceof Short
        || v instanceof Integer
        || v instanceof Long
        || v instanceof BigInteger) {
      sb.append(v);
    } else if (v instanceof Float || v instanceof Double) {
      sb.append(pythonFloat(((Number) v).doubleValue()));
    } else if (v instanceof BigDecimal d) {
      sb.append(pythonFloat(d.doubleValue()));
    } else if (v instanceof CharSequence || v instanceof Character) {
      writeString(sb, v.toString());
    } else if (v instanceof Map<?, ?> map) {
      writeMap(sb, map, depth);
    } else if (v instanceof Collection<?> c) {
      writeList(sb, new ArrayList<>(c), depth);
    } else if (v instanceof Object[] a) {
      writeList(sb, List.of(a), depth);
    } else {
      throw new IllegalArgumentException(
          "Object of type " + v.getClass().getSimpleName() + " is not JSON serializable");
    }
  }

  private void writeMap(StringBuilder sb, Map<?, ?> map, int depth) {
    if (map.isEmpty()) {
      sb.append("{}");
      return;
    }
    List<Map.Entry<?, ?>> entries = new ArrayList<>(map.entrySet());
    if (sortKeys) {
      entries.sort((a, b) -> String.valueOf(a.getKey()).compareTo(String.valueOf(b.getKey())));
    }
    sb.append('{');
    boolean first = true;
    for (Map.Entry<?, ?> e : entries) {
      if (!first) {
        sb.append(itemSeparator);
      }
      first = false;
      newline(sb, depth + 1);
      writeString(sb, keyString(e.getKey()));
      sb.append(keySeparator);
      write(sb, e.getValue(), depth + 1);
    }
    newline(sb, depth);
    sb.append('}');
  }

  private void writeList(StringBuilder sb, List<?> list, int depth) {
    if (list.isEmpty()) {
      sb.append("[]");
      return;
    }
    sb.append('[');
    boolean first = true;
    for (Object o : list) {
      if (!first) {
        sb.append(itemSeparator);
      }
      first = false;
      newline(sb, depth + 1);
      write(sb, o, depth + 1);
    }
    newline(sb, depth);
    sb.append(']');
  }

  private void newline(StringBuilder sb, int depth) {
    if (indent != null) {
      sb.append('\n');
      sb.append(" ".repeat(indent * depth));
    }
  }

  private static String keyString(Object key) {
    if (key == null) {
      return "null";
    }
    if (key instanceof Boolean b) {
      return b ? "true" : "false";
    }
    if (key instanceof Double || key instanceof Float) {
      return pythonFloat(((Number) key).doubleValue());
    }
    return key.toString();
  }

  private void writeString(StringBuilder sb, String s) {
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
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }

  /** Python's {@code repr(float)} for the common cases. */
  static String pythonFloat(double d) {
    if (Double.isNaN(d)) {
      return "NaN";
    }
    if (Double.isInfinite(d)) {
      return d > 0 ? "Infinity" : "-Infinity";
    }
    if (d == 0) {
      return (1 / d < 0) ? "-0.0" : "0.0";
    }
    BigDecimal bd = new BigDecimal(Double.toString(d)).stripTrailingZeros();
    int exponent = bd.precision() - bd.scale() - 1; // decimal exponent of the leading digit
    if (exponent >= -4 && exponent < 16) {
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
    sb.append('e').append(exponent < 0 ? '-' : '+');
    int abs = Math.abs(exponent);
    sb.append(abs < 10 ? "0" + abs : String.valueOf(abs));
    return sb.toString();
  }
}
