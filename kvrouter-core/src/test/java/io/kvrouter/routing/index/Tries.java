package io.kvrouter.routing.index;

import java.util.SplittableRandom;

/**
 * Runs a property over random samples, one seed per try. The seeds of a property come from a fixed
 * base seed and the property's class and method name, so every run checks the same samples. A
 * failure names the seed of its sample; there is no shrinking.
 *
 * <ul>
 *   <li>{@code -Dkvrouter.test.seed=S} checks only the sample of seed {@code S} (a failure gives
 *       the command line), to reproduce and debug it;
 *   <li>{@code -Dkvrouter.test.baseSeed=B} draws other seeds than the usual ones, to look further.
 * </ul>
 */
final class Tries {
  static final long BASE_SEED = 0x6B76_726F_7574_6572L; // "kvrouter"
  static final String SEED_PROPERTY = "kvrouter.test.seed";
  static final String BASE_SEED_PROPERTY = "kvrouter.test.baseSeed";

  /** Draws a sample; {@code genSize} is the number of tries of the property. */
  @FunctionalInterface
  interface Generator<T> {
    T next(SplittableRandom random, int genSize);
  }

  /** Checks one sample: throws (an assertion error, usually) when it falsifies the property. */
  @FunctionalInterface
  interface Property<T> {
    void check(T sample) throws Exception;
  }

  private Tries() {}

  /**
   * Checks {@code property} on {@code tries} samples of {@code generator}; stops at the first that
   * fails, with an assertion error naming its seed and showing it. Call it from the test method
   * itself: the seeds are derived from the caller's class and method name.
   */
  static <T> void forAll(int tries, Generator<T> generator, Property<T> property) {
    StackWalker.StackFrame caller =
        StackWalker.getInstance()
            .walk(s -> s.filter(f -> !f.getClassName().equals(Tries.class.getName())).findFirst())
            .orElseThrow();
    String name = caller.getClassName() + "#" + caller.getMethodName();
    String fixed = System.getProperty(SEED_PROPERTY);
    if (fixed != null && !fixed.isBlank()) {
      check(name, 1, 1, Long.parseLong(fixed.trim()), tries, generator, property);
      return;
    }
    String base = System.getProperty(BASE_SEED_PROPERTY);
    long baseSeed = base == null || base.isBlank() ? BASE_SEED : Long.parseLong(base.trim());
    SplittableRandom seeds = new SplittableRandom(baseSeed ^ mix(name.hashCode()));
    for (int i = 1; i <= tries; i++) {
      check(name, i, tries, seeds.nextLong(), tries, generator, property);
    }
  }

  private static <T> void check(
      String name,
      int attempt,
      int of,
      long seed,
      int genSize,
      Generator<T> generator,
      Property<T> property) {
    T sample = null;
    try {
      sample = generator.next(new SplittableRandom(seed), genSize);
      property.check(sample);
    } catch (Throwable e) {
      if (e instanceof OutOfMemoryError) {
        throw (OutOfMemoryError) e;
      }
      String simpleName = name.substring(name.lastIndexOf('.') + 1);
      throw new AssertionError(
          String.format(
              "%s falsified at try %d of %d, seed=%d%n"
                  + "  rerun this sample: mvn test -Dtest='%s' -D%s=%d%n"
                  + "  sample: %s%n"
                  + "  failure: %s",
              simpleName, attempt, of, seed, simpleName, SEED_PROPERTY, seed, sample, e),
          e);
    }
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
    z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
    return z ^ (z >>> 33);
  }
}
