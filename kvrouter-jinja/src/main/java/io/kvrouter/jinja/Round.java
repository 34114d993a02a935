package io.kvrouter.jinja;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Jinja2's {@code round} filter: {@code round(value, precision)} for "common" (an int stays an
 * int), else {@code math.ceil/floor(value * 10**precision) / 10**precision}, with Python's float
 * arithmetic and its errors.
 */
final class Round {
  private Round() {}

  static Object round(Object value, Object precisionArg, Object methodArg) {
    String method = Py.str(methodArg);
    if (!method.equals("common") && !method.equals("ceil") && !method.equals("floor")) {
      throw TemplateError.of("FilterArgumentError", "method must be common, ceil or floor");
    }
    long precision = Py.index(precisionArg);
    if (method.equals("common")) {
      if (Py.isInt(value)) {
        return roundInt(value instanceof Boolean ? (Object) Py.toLong(value) : value, precision);
      }
      if (value instanceof Double d) {
        return roundFloat(d, precision);
      }
      throw TemplateError.typeError(
          "type " + Py.typeName(value) + " doesn't define __round__ method");
    }
    return ceilOrFloor(value, precision, method.equals("ceil"));
  }

  /** Python's {@code round(int, n)}: unchanged for n >= 0, else half to even at 10**-n. */
  private static Object roundInt(Object x, long n) {
    if (n >= 0) {
      return x;
    }
    if (n < -400000) {
      return 0L; // |x| < 2**(2**20) < 10**400000 / 2
    }
    return PyInt.of(
        new BigDecimal(PyInt.big(x)).setScale((int) n, RoundingMode.HALF_EVEN).toBigIntegerExact());
  }

  /** Python's {@code round(float, n)}: the exact binary value rounded half to even. */
  private static double roundFloat(double x, long n) {
    if (!Double.isFinite(x) || n > 323) {
      return x; // a double has no more decimals than 323 + 17
    }
    if (n < -308) {
      return 0.0 * x;
    }
    double r = new BigDecimal(x).setScale((int) n, RoundingMode.HALF_EVEN).doubleValue();
    if (Double.isInfinite(r)) {
      throw TemplateError.of("OverflowError", "rounded value too large to represent");
    }
    return r;
  }

  private static double ceilOrFloor(Object value, long precision, boolean ceil) {
    if (Py.isInt(value) && precision >= 0) {
      // exact int arithmetic: value * 10**p / 10**p is value, as a float
      return Py.toDouble(value);
    }
    if (!Py.isNumber(value)) {
      // Python's own error for value * 10**precision (an int, or a float when negative)
      Py.arith("*", value, precision >= 0 ? (Object) 1L : (Object) 0.1);
      throw TemplateError.typeError("must be real number, not " + Py.typeName(value));
    }
    double scale = Double.parseDouble("1e" + precision); // float(10**p), correctly rounded
    if (Double.isInfinite(scale)) {
      throw TemplateError.of("OverflowError", "int too large to convert to float");
    }
    double scaled = Py.toDouble(value) * scale;
    if (Double.isNaN(scaled)) {
      throw TemplateError.of("ValueError", "cannot convert float NaN to integer");
    }
    if (Double.isInfinite(scaled)) {
      throw TemplateError.of("OverflowError", "cannot convert float infinity to integer");
    }
    double whole = ceil ? Math.ceil(scaled) : Math.floor(scaled);
    if (precision >= 0) {
      // an int divided by the int 10**p: Python divides exactly, then rounds once
      return new BigDecimal(whole).movePointLeft((int) precision).doubleValue();
    }
    if (scale == 0) {
      throw TemplateError.of("ZeroDivisionError", "float division by zero");
    }
    return whole / scale;
  }
}
