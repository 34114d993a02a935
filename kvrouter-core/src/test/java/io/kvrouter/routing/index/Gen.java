package io.kvrouter.routing.index;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * Seeded random values for the property tests, drawn the way the property-based testing library
 * these tests used before drew them, so the tests keep exercising the same mix of inputs:
 *
 * <ul>
 *   <li>{@link Ints}: integers in a range, biased toward 0 (or the bound nearest to it) and now and
 *       then a boundary value;
 *   <li>{@link Sizes}: collection sizes, mostly small with a tail up to the maximum;
 *   <li>{@link Weighted}: a choice among values by integer weights.
 * </ul>
 *
 * <p>{@code genSize} is the number of tries of the property, as it was before.
 */
final class Gen {

  private Gen() {}

  /** A uniform long in {@code [min, max]}, both included. */
  static long between(SplittableRandom random, long min, long max) {
    return min == max ? min : random.nextLong(min, max + 1);
  }

  /** A uniform int in {@code [min, max]}, both included. */
  static int between(SplittableRandom random, int min, int max) {
    return min == max ? min : random.nextInt(min, max + 1);
  }

  /**
   * Integers in {@code [min, max]}. Ranges wider than 20 values are cut into bands that grow away
   * from the target (0, or the bound nearest to 0): each band is picked with the same probability,
   * then a value uniformly within it, so values near the target come up far more often. Ranges of
   * 20 values or fewer are uniform. On top of that, one draw in {@code 100 / edges + 1} is a
   * boundary value (the target, -2..2, min, min + 1, max - 1, max, where in range).
   */
  static final class Ints {
    private final long[] bandLows;
    private final long[] bandHighs;
    private final long[] edges;
    private final int edgeRatio;

    Ints(long min, long max) {
      if (min > max) {
        throw new IllegalArgumentException(min + " > " + max);
      }
      long target = min <= 0 && 0 <= max ? 0 : (min > 0 ? min : max);
      List<long[]> bands = bands(min, max, target);
      bandLows = new long[bands.size()];
      bandHighs = new long[bands.size()];
      for (int i = 0; i < bands.size(); i++) {
        bandLows[i] = bands.get(i)[0];
        bandHighs[i] = bands.get(i)[1];
      }
      Set<Long> edgeSet = new LinkedHashSet<>();
      for (long v : new long[] {target, -2, -1, 0, 2, 1, min, min + 1, max, max - 1}) {
        if (min <= v && v <= max) {
          edgeSet.add(v);
        }
      }
      edges = edgeSet.stream().mapToLong(Long::longValue).toArray();
      // one in (min(genSize / 5, 100 / edges) + 1); genSize / 5 never binds for >= 200 tries
      edgeRatio = 100 / edges.length + 1;
    }

    long nextLong(SplittableRandom random) {
      if (random.nextInt(edgeRatio) == 0) {
        return edges[random.nextInt(edges.length)];
      }
      int band = bandLows.length == 1 ? 0 : random.nextInt(bandLows.length);
      return between(random, bandLows[band], bandHighs[band]);
    }

    int nextInt(SplittableRandom random) {
      return Math.toIntExact(nextLong(random));
    }

    /** The bands as {low, high} pairs, low to high. */
    List<long[]> bands() {
      List<long[]> bands = new ArrayList<>();
      for (int i = 0; i < bandLows.length; i++) {
        bands.add(new long[] {bandLows[i], bandHighs[i]});
      }
      return bands;
    }

    private static List<long[]> bands(long min, long max, long target) {
      TreeSet<Long> starts = new TreeSet<>();
      if (target > min) {
        cut(starts, min, target, -1);
      }
      if (target < max) {
        cut(starts, max, target, 1);
      }
      if (min < target && target < max && !starts.isEmpty()) {
        starts.add(target);
      }
      List<long[]> bands = new ArrayList<>();
      long low = min;
      for (long start : starts) {
        if (start <= low) {
          continue;
        }
        if (start >= max) {
          break;
        }
        bands.add(new long[] {low, start - 1});
        low = start;
      }
      bands.add(new long[] {low, max});
      return bands;
    }

    /**
     * Band starts from {@code bound} toward {@code target}: each cut keeps a third (or less) of
     * what is left.
     */
    private static void cut(Set<Long> starts, long bound, long target, int direction) {
      long left = Math.abs(bound - target);
      while (left > 20) {
        int decimals = (64 - Long.numberOfLeadingZeros(left)) / 10 * 3;
        long ratio = Math.max((long) Math.pow(decimals / 5.0, 10), 3);
        long distance = left / ratio;
        if (distance == 0) {
          return;
        }
        starts.add(target + direction * distance);
        left = distance;
      }
    }
  }

  /**
   * Sizes in {@code [min, max]}. When the range is wider than {@code max(round(sqrt(genSize)), 10)}
   * values, sizes above {@code cutoff = min + that} are rare: the maximum with probability {@code
   * min(0.02, 10 / genSize)}, else a size above the cutoff with probability 0.1 + that, else a
   * uniform size in {@code [min, cutoff]}. Narrower ranges are uniform.
   */
  static final class Sizes {
    private final int min;
    private final int max;
    private final int cutoff;
    private final double maxProbability;

    Sizes(int min, int max, int genSize) {
      if (min > max) {
        throw new IllegalArgumentException(min + " > " + max);
      }
      this.min = min;
      this.max = max;
      int offset = (int) Math.max(Math.round(Math.sqrt(genSize)), 10);
      this.cutoff = max - min <= offset ? max : Math.min(min + offset, max);
      this.maxProbability = Math.min(0.02, 10.0 / genSize);
    }

    int next(SplittableRandom random) {
      if (cutoff >= max) {
        return between(random, min, max);
      }
      if (random.nextDouble() <= maxProbability) {
        return max;
      }
      if (random.nextDouble() <= 0.1 + maxProbability) {
        return between(random, cutoff + 1, max);
      }
      return between(random, min, cutoff);
    }

    int cutoff() {
      return cutoff;
    }
  }

  /** A list of {@code sizes.next(random)} values drawn from {@code values}. */
  static List<Long> longs(SplittableRandom random, Sizes sizes, Ints values) {
    int size = sizes.next(random);
    List<Long> out = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      out.add(values.nextLong(random));
    }
    return out;
  }

  /** A choice among values by integer weights. */
  static final class Weighted<T> {
    private final List<T> values = new ArrayList<>();
    private final List<Integer> weights = new ArrayList<>();
    private int total;

    Weighted<T> with(int weight, T value) {
      if (weight <= 0) {
        throw new IllegalArgumentException("weight " + weight);
      }
      values.add(value);
      weights.add(weight);
      total += weight;
      return this;
    }

    T next(SplittableRandom random) {
      int roll = random.nextInt(total);
      for (int i = 0; i < values.size(); i++) {
        roll -= weights.get(i);
        if (roll < 0) {
          return values.get(i);
        }
      }
      throw new AssertionError("unreachable");
    }

    int weight(T value) {
      int i = values.indexOf(value);
      return i < 0 ? 0 : weights.get(i);
    }

    int total() {
      return total;
    }
  }
}
