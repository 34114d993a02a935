package io.kvrouter.jinja;

import java.util.AbstractList;
import java.util.RandomAccess;

/**
 * Python's {@code range}: a lazy sequence of ints that prints as {@code range(0, 3)}, slices to a
 * range, has {@code start}, {@code stop} and {@code step}, and equals only another range.
 */
final class PyRange extends AbstractList<Object> implements RandomAccess {
  final long start;
  final long stop;
  final long step;
  private final int size;

  /** {@code step} is not 0; {@code maxSize} bounds the length (Jinja2's sandbox: MAX_RANGE). */
  PyRange(long start, long stop, long step, int maxSize) {
    this.start = start;
    this.stop = stop;
    this.step = step;
    long n = length(start, stop, step);
    if (n > maxSize) {
      throw TemplateError.of(
          "OverflowError",
          "Range too big. The sandbox blocks ranges larger than" + " MAX_RANGE (" + maxSize + ").");
    }
    this.size = (int) n;
  }

  /** How many ints the range holds; Long.MAX_VALUE when that does not fit in a long. */
  private static long length(long start, long stop, long step) {
    long from = step > 0 ? start : stop;
    long to = step > 0 ? stop : start;
    if (to <= from) {
      return 0;
    }
    long span = to - from;
    if (span < 0) {
      return Long.MAX_VALUE; // overflowed: far beyond any MAX_RANGE
    }
    return (span - 1) / Math.abs(step) + 1;
  }

  @Override
  public Object get(int index) {
    if (index < 0 || index >= size) {
      throw new IndexOutOfBoundsException(index);
    }
    return start + index * step;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public String toString() {
    return "range(" + start + ", " + stop + (step == 1 ? ")" : ", " + step + ")");
  }
}
