package io.kvrouter.common;

/** SplitMix64's finalizer: a cheap bijection on 64-bit values that spreads neighbouring inputs. */
public final class SplitMix {
  private SplitMix() {}

  public static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
