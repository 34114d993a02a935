package io.kvrouter.jinja;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Jinja2's {@code int} and {@code float} filters: Python's {@code int(value, base)} (else {@code
 * int(float(value))}) and {@code float(value)}, with the default when Python raises a TypeError or
 * ValueError, and Python's own string grammars (underscores between digits, {@code inf} and {@code
 * nan}, base prefixes).
 */
final class Conversions {
  private Conversions() {}

  private static final String DIGITS = "\\d(?:_?\\d)*";

  /** What Python's float() accepts once stripped. */
  private static final Pattern FLOAT =
      Pattern.compile(
          "[+-]?(?:(?:"
              + DIGITS
              + "(?:\\.(?:"
              + DIGITS
              + ")?)?|\\."
              + DIGITS
              + ")(?:[eE][+-]?"
              + DIGITS
              + ")?|inf|infinity|nan)",
          Pattern.CASE_INSENSITIVE);

  static Object toInt(Object v, Object dflt, Object base) {
    if (v instanceof Undefined u) {
      throw u.error();
    }
    if (Py.isInt(v)) {
      return v instanceof Boolean ? (Object) Py.toLong(v) : v;
    }
    if (v instanceof Double d) {
      if (Double.isInfinite(d)) {
        // int(inf) raises OverflowError, which do_int does not catch
        throw TemplateError.of("OverflowError", "cannot convert float infinity to integer");
      }
      return Double.isNaN(d) ? dflt : truncate(d);
    }
    String text = Markup.text(v);
    if (text == null) {
      return dflt;
    }
    if (Py.isInt(base)) {
      long b = Py.toLong(base);
      BigInteger n = b == 0 || (b >= 2 && b <= 36) ? parseInt(text, (int) b) : null;
      if (n != null) {
        return PyInt.of(n);
      }
    }
    // "42.23"|int is 42: int(float(value)), where nan and inf give the default
    Double d = parseFloat(text);
    return d == null || !Double.isFinite(d) ? dflt : truncate(d);
  }

  static Object toFloat(Object v, Object dflt) {
    if (v instanceof Undefined u) {
      throw u.error();
    }
    if (v instanceof Double) {
      return v;
    }
    if (Py.isInt(v)) {
      return Py.toDouble(v);
    }
    String text = Markup.text(v);
    Double d = text == null ? null : parseFloat(text);
    return d == null ? dflt : d;
  }

  private static Object truncate(double d) {
    return PyInt.of(new BigDecimal(d).toBigInteger());
  }

  /** Python's {@code float(s)}, or null where it raises ValueError. */
  private static Double parseFloat(String s) {
    String t = StrMethods.strip(s, null);
    if (!FLOAT.matcher(t).matches()) {
      return null;
    }
    String lower = t.toLowerCase(Locale.ROOT);
    boolean negative = lower.startsWith("-");
    if (lower.endsWith("nan")) {
      return Double.NaN;
    }
    if (lower.endsWith("inf") || lower.endsWith("infinity")) {
      return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
    }
    return Double.parseDouble(t.replace("_", ""));
  }

  /**
   * Python's {@code int(s, base)} (base 0, or 2 to 36), or null where it raises ValueError: a sign,
   * a prefix (0x, 0o, 0b) where the base allows it, digits of any script with single underscores
   * between them.
   */
  private static BigInteger parseInt(String s, int base) {
    String t = StrMethods.strip(s, null);
    int i = 0;
    boolean negative = false;
    if (i < t.length() && (t.charAt(i) == '+' || t.charAt(i) == '-')) {
      negative = t.charAt(i++) == '-';
    }
    int radix = base == 0 ? 10 : base;
    boolean prefixed = false;
    if (t.length() - i >= 2 && t.charAt(i) == '0') {
      int p = prefixRadix(Character.toLowerCase(t.charAt(i + 1)));
      if (p != 0 && (base == 0 || base == p)) {
        radix = p;
        prefixed = true;
        i += 2;
        if (i < t.length() && t.charAt(i) == '_') {
          i++; // int('0x_1f', 16) is 31
        }
      }
    }
    StringBuilder digits = new StringBuilder();
    boolean underscore = true; // no leading underscore
    for (; i < t.length(); i++) {
      char c = t.charAt(i);
      if (c == '_' && !underscore) {
        underscore = true;
        continue;
      }
      int d = Character.digit(c, radix);
      if (d < 0) {
        return null;
      }
      digits.append(Character.forDigit(d, radix));
      underscore = false;
    }
    if (digits.length() == 0 || underscore) {
      return null;
    }
    if (Integer.bitCount(radix) != 1 && digits.length() > PyInt.MAX_STR_DIGITS) {
      return null; // Python's ValueError: beyond the limit on digits (not for power-of-2 bases)
    }
    // base 0 takes no leading zero in a decimal number but 0 itself (010 is an error)
    if (base == 0
        && !prefixed
        && digits.charAt(0) == '0'
        && digits.chars().anyMatch(c -> c != '0')) {
      return null;
    }
    BigInteger n = new BigInteger(digits.toString(), radix);
    return negative ? n.negate() : n;
  }

  private static int prefixRadix(char c) {
    return c == 'x' ? 16 : c == 'o' ? 8 : c == 'b' ? 2 : 0;
  }
}
