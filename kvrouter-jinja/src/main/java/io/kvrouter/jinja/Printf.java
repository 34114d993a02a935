package io.kvrouter.jinja;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Python's printf-style formatting, {@code format % args} (also the {@code format} filter), as
 * CPython's {@code PyUnicode_Format} does it: {@code %(key)}, the flags {@code -+ #0}, width and
 * precision (or {@code *}), and the conversions {@code s r a d i u x X o c e E f F g G} and {@code
 * %%}, with its errors. Floats are rounded from their exact binary value, half to even.
 */
final class Printf {
  private final String fmt;
  private final Object dict;

  /** The tuple of arguments, the single argument, or the value of the last {@code %(key)}. */
  private Object args;

  private int arglen;
  private int argidx;
  private final StringBuilder out = new StringBuilder();

  private Printf(String fmt, Object args) {
    this.fmt = fmt;
    this.args = args;
    // CPython: a tuple holds the arguments; anything else is the one argument
    this.arglen = args instanceof PyTuple t ? t.size() : -1;
    this.argidx = args instanceof PyTuple ? 0 : -2;
    this.dict = isMapping(args) ? args : null;
  }

  static String format(String fmt, Object args) {
    return new Printf(fmt, args).run();
  }

  /** CPython's PyMapping_Check less tuples and strings: what {@code %(key)} may look into. */
  private static boolean isMapping(Object v) {
    return v instanceof Map
        || Py.isListOrTuple(v) && !(v instanceof PyTuple)
        || v instanceof PyRange
        || v instanceof Undefined;
  }

  private String run() {
    int[] cps = fmt.codePoints().toArray();
    int i = 0;
    while (i < cps.length) {
      if (cps[i] != '%') {
        out.appendCodePoint(cps[i++]);
        continue;
      }
      if (i + 1 < cps.length && cps[i + 1] == '%') {
        out.append('%');
        i += 2;
        continue;
      }
      i = spec(cps, i + 1);
      Limits.checkBuilt(out, "a % formatting");
    }
    if (argidx < arglen && dict == null) {
      throw TemplateError.typeError("not all arguments converted during string formatting");
    }
    return out.toString();
  }

  /** Formats the specification starting after its {@code %}; returns where the next begins. */
  private int spec(int[] cps, int i) {
    if (i < cps.length && cps[i] == '(') {
      i = key(cps, i + 1);
    }
    boolean left = false;
    boolean plus = false;
    boolean space = false;
    boolean alt = false;
    boolean zero = false;
    for (; i < cps.length && "-+ #0".indexOf(cps[i]) >= 0; i++) {
      switch (cps[i]) {
        case '-' -> left = true;
        case '+' -> plus = true;
        case ' ' -> space = true;
        case '#' -> alt = true;
        default -> zero = true;
      }
    }
    long width = -1;
    if (i < cps.length && cps[i] == '*') {
      width = starArg();
      if (width < 0) {
        left = true;
        width = -width;
      }
      i++;
    } else {
      for (; i < cps.length && Character.isDigit(cps[i]); i++) {
        width = Math.max(width, 0) * 10 + (cps[i] - '0');
        Limits.checkLength(width, "a % formatting width");
      }
    }
    long precision = -1;
    if (i < cps.length && cps[i] == '.') {
      i++;
      precision = 0;
      if (i < cps.length && cps[i] == '*') {
        precision = Math.max(0, starArg());
        i++;
      } else {
        for (; i < cps.length && Character.isDigit(cps[i]); i++) {
          precision = precision * 10 + (cps[i] - '0');
          Limits.checkLength(precision, "a % formatting precision");
        }
      }
    }
    while (i < cps.length && (cps[i] == 'h' || cps[i] == 'l' || cps[i] == 'L')) {
      i++;
    }
    if (i >= cps.length) {
      throw TemplateError.of("ValueError", "incomplete format");
    }
    Object v = nextArg();
    int c = cps[i];
    String body;
    String sign = "";
    String prefix = "";
    boolean numeric = true;
    switch (c) {
      case 's', 'r', 'a' -> {
        String s = c == 's' ? Py.str(v) : c == 'r' ? Py.repr(v) : ascii(Py.repr(v));
        body =
            precision >= 0 && precision < s.codePointCount(0, s.length())
                ? s.substring(0, s.offsetByCodePoints(0, (int) precision))
                : s;
        numeric = false;
      }
      case 'c' -> {
        body = character(v);
        numeric = false;
      }
      case 'd', 'i', 'u', 'x', 'X', 'o' -> {
        BigInteger n = integer(v, c);
        sign = n.signum() < 0 ? "-" : plus ? "+" : space ? " " : "";
        int radix = c == 'x' || c == 'X' ? 16 : c == 'o' ? 8 : 10;
        String digits = n.abs().toString(radix);
        if (c == 'X') {
          digits = digits.toUpperCase(Locale.ROOT);
        }
        body = "0".repeat(Math.max(0, (int) precision - digits.length())) + digits;
        if (alt && radix != 10) {
          prefix = c == 'x' ? "0x" : c == 'X' ? "0X" : "0o";
        }
      }
      case 'e', 'E', 'f', 'F', 'g', 'G' -> {
        double d = real(v);
        sign = d < 0 || (d == 0 && 1 / d < 0) ? "-" : plus ? "+" : space ? " " : "";
        body = floating(Math.abs(d), Character.toLowerCase(c), precision < 0 ? 6 : precision, alt);
        if (Character.isUpperCase(c)) {
          body = body.toUpperCase(Locale.ROOT);
        }
      }
      default ->
          throw TemplateError.of(
              "ValueError",
              "unsupported format character '"
                  + Py.character(c)
                  + "' (0x"
                  + Integer.toHexString(c)
                  + ") at index "
                  + i);
    }
    int len = sign.length() + prefix.length() + body.codePointCount(0, body.length());
    int pad = (int) Math.max(0, width - len);
    if (left) {
      out.append(sign).append(prefix).append(body).append(" ".repeat(pad));
    } else if (zero && numeric) {
      out.append(sign).append(prefix).append("0".repeat(pad)).append(body);
    } else {
      out.append(" ".repeat(pad)).append(sign).append(prefix).append(body);
    }
    return i + 1;
  }

  /** {@code %(key)}: the value of the key in the mapping becomes the argument. */
  private int key(int[] cps, int i) {
    int start = i;
    int depth = 1;
    for (; i < cps.length; i++) {
      if (cps[i] == '(') {
        depth++;
      } else if (cps[i] == ')' && --depth == 0) {
        break;
      }
    }
    if (i >= cps.length) {
      throw TemplateError.of("ValueError", "incomplete format key");
    }
    if (dict == null) {
      throw TemplateError.typeError("format requires a mapping");
    }
    String key = new String(cps, start, i - start);
    if (dict instanceof Map<?, ?> m) {
      Object k = DictKeys.find(m, key);
      if (k == DictKeys.ABSENT) {
        throw TemplateError.of("KeyError", Py.repr(key));
      }
      args = m.get(k);
    } else if (dict instanceof Undefined u) {
      throw u.error();
    } else {
      throw TemplateError.typeError(
          Py.typeName(dict) + " indices must be integers or slices, not str");
    }
    arglen = -1;
    argidx = -2;
    return i + 1;
  }

  private Object nextArg() {
    if (argidx >= arglen) {
      throw TemplateError.typeError("not enough arguments for format string");
    }
    int at = argidx++;
    return arglen < 0 ? args : ((List<?>) args).get(at);
  }

  /** The width or precision given as {@code *}. */
  private long starArg() {
    Object v = nextArg();
    if (!Py.isInt(v)) {
      throw TemplateError.typeError("* wants int");
    }
    long n = Py.toLong(v);
    Limits.checkLength(n < 0 ? -(n + 1) : n, "a % formatting width");
    return n;
  }

  private static String character(Object v) {
    if (Py.isInt(v)) {
      long cp = Py.toLong(v);
      if (cp < 0 || cp > 0x10FFFF) {
        throw TemplateError.of("OverflowError", "%c arg not in range(0x110000)");
      }
      return Py.character((int) cp);
    }
    String s = Markup.text(v);
    if (s == null || s.codePointCount(0, s.length()) != 1) {
      throw TemplateError.typeError("%c requires int or char");
    }
    return s;
  }

  /** The int of {@code %d} (a float is truncated) or {@code %x}/{@code %o} (an int only). */
  private static BigInteger integer(Object v, int c) {
    if (Py.isInt(v)) {
      return PyInt.big(v);
    }
    boolean decimal = c == 'd' || c == 'i' || c == 'u';
    if (decimal && v instanceof Double d) {
      if (Double.isNaN(d)) {
        throw TemplateError.of("ValueError", "cannot convert float NaN to integer");
      }
      if (Double.isInfinite(d)) {
        throw TemplateError.of("OverflowError", "cannot convert float infinity to integer");
      }
      return new BigDecimal(d).toBigInteger();
    }
    if (decimal && v instanceof Undefined u) {
      throw u.error();
    }
    throw TemplateError.typeError(
        "%"
            + Py.character(c)
            + " format: "
            + (decimal ? "a real number" : "an integer")
            + " is required, not "
            + Py.typeName(v));
  }

  private static double real(Object v) {
    if (Py.isNumber(v)) {
      return Py.toDouble(v);
    }
    if (v instanceof Undefined u) {
      throw u.error();
    }
    throw TemplateError.typeError("must be real number, not " + Py.typeName(v));
  }

  /** {@code %f}, {@code %e} or {@code %g} of a non-negative double, in lower case. */
  private static String floating(double d, int c, long precision, boolean alt) {
    if (Double.isNaN(d)) {
      return "nan";
    }
    if (Double.isInfinite(d)) {
      return "inf";
    }
    int p = (int) precision;
    BigDecimal exact = new BigDecimal(d);
    if (c == 'f') {
      String s = exact.setScale(p, RoundingMode.HALF_EVEN).toPlainString();
      return alt && p == 0 ? s + "." : s;
    }
    if (c == 'e') {
      return exponential(exact, p, alt);
    }
    int sig = p == 0 ? 1 : p;
    int exp = d == 0 ? 0 : exponent(exact.round(new MathContext(sig, RoundingMode.HALF_EVEN)));
    String s =
        exp >= -4 && exp < sig
            ? exact.setScale(sig - 1 - exp, RoundingMode.HALF_EVEN).toPlainString()
            : exponential(exact, sig - 1, alt);
    if (alt) {
      return s.contains(".") || s.contains("e") ? s : s + ".";
    }
    // %g drops trailing zeros of the fraction, and a bare decimal point
    int e = s.indexOf('e');
    String mantissa = e < 0 ? s : s.substring(0, e);
    if (mantissa.contains(".")) {
      mantissa = mantissa.replaceAll("0+$", "").replaceAll("\\.$", "");
    }
    return e < 0 ? mantissa : mantissa + s.substring(e);
  }

  /** d.ddd...e+XX with {@code p} digits after the point. */
  private static String exponential(BigDecimal exact, int p, boolean alt) {
    String digits;
    int exp;
    if (exact.signum() == 0) {
      digits = "0".repeat(p + 1);
      exp = 0;
    } else {
      BigDecimal r = exact.round(new MathContext(p + 1, RoundingMode.HALF_EVEN));
      exp = exponent(r);
      String u = r.unscaledValue().toString();
      digits = u.length() > p + 1 ? u.substring(0, p + 1) : u + "0".repeat(p + 1 - u.length());
    }
    StringBuilder sb = new StringBuilder(digits.substring(0, 1));
    if (p > 0 || alt) {
      sb.append('.').append(digits, 1, digits.length());
    }
    sb.append('e').append(exp < 0 ? '-' : '+');
    if (Math.abs(exp) < 10) {
      sb.append('0');
    }
    return sb.append(Math.abs(exp)).toString();
  }

  /** The decimal exponent of a non-zero value's first significant digit. */
  private static int exponent(BigDecimal r) {
    return r.precision() - r.scale() - 1;
  }

  /** Python's {@code ascii()} of a repr: code points beyond ASCII as escapes. */
  private static String ascii(String repr) {
    StringBuilder sb = new StringBuilder();
    repr.codePoints()
        .forEach(
            cp -> {
              if (cp < 0x80) {
                sb.appendCodePoint(cp);
              } else if (cp < 0x100) {
                sb.append(String.format("\\x%02x", cp));
              } else if (cp < 0x10000) {
                sb.append(String.format("\\u%04x", cp));
              } else {
                sb.append(String.format("\\U%08x", cp));
              }
            });
    return sb.toString();
  }
}
