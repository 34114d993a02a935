package io.kvrouter.jinja;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Python's unbounded int over two Java types: a {@link Long} while the value fits in 64 bits, a
 * {@link BigInteger} beyond (never a BigInteger that would fit, so equal ints are equal objects of
 * one type). Requests carry such integers (a tool call's arguments may hold {@code
 * 12345678901234567890123}) and Python prints them digit for digit, so the value model must too.
 * Arithmetic on two Longs stays on longs and moves to BigInteger only when a result overflows.
 *
 * <p>Python 3.11 and later refuse to turn an int of more than 4300 decimal digits into text (and
 * text of more than 4300 digits into an int): {@link #str} fails the same way.
 */
final class PyInt {
  private PyInt() {}

  /** {@code sys.get_int_max_str_digits()}'s default. */
  static final int MAX_STR_DIGITS = 4300;

  /**
   * Results beyond this many bits fail with MemoryError (Python would compute them, slowly, and
   * could not print them: 4300 digits are about 14,300 bits).
   */
  private static final int MAX_BITS = 1 << 20;

  /** The value model's int for {@code b}: a Long when it fits. */
  static Object of(BigInteger b) {
    if (b.bitLength() <= 63) {
      return b.longValue();
    }
    if (b.bitLength() > MAX_BITS) {
      throw TemplateError.of(
          "MemoryError", "an integer of more than " + MAX_BITS + " bits is not supported");
    }
    return b;
  }

  static BigInteger big(Object v) {
    if (v instanceof BigInteger b) {
      return b;
    }
    return BigInteger.valueOf(Py.toLong(v));
  }

  /** Python's {@code str(int)} for a BigInteger, with Python's limit on digits. */
  static String str(BigInteger b) {
    String s = b.toString();
    if (s.length() - (b.signum() < 0 ? 1 : 0) > MAX_STR_DIGITS) {
      throw TemplateError.of(
          "ValueError",
          "Exceeds the limit ("
              + MAX_STR_DIGITS
              + " digits) for integer string conversion; use sys.set_int_max_str_digits() to"
              + " increase the limit");
    }
    return s;
  }

  static Object add(Object a, Object b) {
    if (!(a instanceof BigInteger) && !(b instanceof BigInteger)) {
      long x = Py.toLong(a);
      long y = Py.toLong(b);
      long r = x + y;
      if (((x ^ r) & (y ^ r)) >= 0) {
        return r;
      }
    }
    return of(big(a).add(big(b)));
  }

  static Object subtract(Object a, Object b) {
    if (!(a instanceof BigInteger) && !(b instanceof BigInteger)) {
      long x = Py.toLong(a);
      long y = Py.toLong(b);
      long r = x - y;
      if (((x ^ y) & (x ^ r)) >= 0) {
        return r;
      }
    }
    return of(big(a).subtract(big(b)));
  }

  static Object multiply(Object a, Object b) {
    if (!(a instanceof BigInteger) && !(b instanceof BigInteger)) {
      long x = Py.toLong(a);
      long y = Py.toLong(b);
      long hi = Math.multiplyHigh(x, y);
      long lo = x * y;
      if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
        return lo;
      }
    }
    return of(big(a).multiply(big(b)));
  }

  /** Python's {@code a // b} (rounds toward negative infinity); b is not zero. */
  static Object floorDiv(Object a, Object b) {
    if (!(a instanceof BigInteger) && !(b instanceof BigInteger)) {
      long x = Py.toLong(a);
      long y = Py.toLong(b);
      if (!(x == Long.MIN_VALUE && y == -1)) {
        return Math.floorDiv(x, y);
      }
    }
    BigInteger[] qr = big(a).divideAndRemainder(big(b));
    BigInteger q = qr[0];
    if (qr[1].signum() != 0 && qr[1].signum() != big(b).signum()) {
      q = q.subtract(BigInteger.ONE);
    }
    return of(q);
  }

  /** Python's {@code a % b} (takes the sign of b); b is not zero. */
  static Object mod(Object a, Object b) {
    if (!(a instanceof BigInteger) && !(b instanceof BigInteger)) {
      return Math.floorMod(Py.toLong(a), Py.toLong(b));
    }
    BigInteger m = big(b);
    BigInteger r = big(a).mod(m.abs());
    return of(m.signum() < 0 && r.signum() != 0 ? r.add(m) : r);
  }

  /** Python's {@code a ** b} for an int exponent b >= 0. */
  static Object pow(Object a, Object b) {
    BigInteger base = big(a);
    BigInteger exp = big(b);
    if (base.signum() == 0 || base.equals(BigInteger.ONE)) {
      return exp.signum() == 0 ? 1L : of(base);
    }
    if (base.equals(BigInteger.ONE.negate())) {
      return exp.testBit(0) ? -1L : 1L;
    }
    if (exp.bitLength() > 31 || (long) base.bitLength() * exp.intValue() > MAX_BITS + 64) {
      throw TemplateError.of(
          "MemoryError", "an integer of more than " + MAX_BITS + " bits is not supported");
    }
    return of(base.pow(exp.intValue()));
  }

  static Object negate(Object v) {
    if (!(v instanceof BigInteger) && Py.toLong(v) != Long.MIN_VALUE) {
      return -Py.toLong(v);
    }
    return of(big(v).negate());
  }

  static Object abs(Object v) {
    if (!(v instanceof BigInteger) && Py.toLong(v) != Long.MIN_VALUE) {
      return Math.abs(Py.toLong(v));
    }
    return of(big(v).abs());
  }

  static int compare(Object a, Object b) {
    if (!(a instanceof BigInteger) && !(b instanceof BigInteger)) {
      return Long.compare(Py.toLong(a), Py.toLong(b));
    }
    return big(a).compareTo(big(b));
  }

  /** Python compares an int and a float exactly, not by converting the int to a float. */
  static int compareWithFloat(Object i, double d) {
    if (Double.isNaN(d)) {
      throw new IllegalArgumentException("NaN has no order");
    }
    if (Double.isInfinite(d)) {
      return d > 0 ? -1 : 1;
    }
    if (!(i instanceof BigInteger)) {
      long x = Py.toLong(i);
      if (Math.abs(x) < (1L << 53)) {
        return x < d ? -1 : (x > d ? 1 : 0);
      }
    }
    return new BigDecimal(big(i)).compareTo(new BigDecimal(d));
  }

  /** Python's {@code int / int}: the exact quotient, rounded once; b is not zero. */
  static double trueDivide(Object a, Object b) {
    if (!(a instanceof BigInteger) && !(b instanceof BigInteger)) {
      long x = Py.toLong(a);
      long y = Py.toLong(b);
      if (Math.abs(x) < (1L << 53) && Math.abs(y) < (1L << 53)) {
        return (double) x / (double) y; // both exact as doubles: one rounding, as Python
      }
    }
    double q =
        new BigDecimal(big(a))
            .divide(new BigDecimal(big(b)), new MathContext(60, RoundingMode.HALF_EVEN))
            .doubleValue();
    if (Double.isInfinite(q)) {
      throw TemplateError.of("OverflowError", "integer division result too large for a float");
    }
    return q;
  }

  /** Python's {@code float(int)}: correctly rounded, OverflowError beyond the largest float. */
  static double toDouble(Object v) {
    if (!(v instanceof BigInteger b)) {
      return Py.toLong(v);
    }
    double d = b.doubleValue();
    if (Double.isInfinite(d)) {
      throw TemplateError.of("OverflowError", "int too large to convert to float");
    }
    return d;
  }

  /** An int used as a slice bound: Python clamps it to the ssize_t range. */
  static long clamped(Object v) {
    if (v instanceof BigInteger b) {
      return b.signum() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return Py.toLong(v);
  }
}
