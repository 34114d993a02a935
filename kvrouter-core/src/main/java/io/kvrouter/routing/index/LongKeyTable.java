package io.kvrouter.routing.index;

import java.util.function.Consumer;
import java.util.function.ToLongFunction;

/**
 * A table of non-null values that each carry their own {@code long} key (a block's hash): open
 * addressing with linear probing and backward-shift deletion over one array of the values
 * themselves. No key is stored beside a value and nothing is boxed, so a slot costs one reference
 * (4 bytes with compressed oops), where a map of keys to values costs a key, a value and usually an
 * entry object. Not thread-safe.
 */
final class LongKeyTable<V> {
  private static final int MIN_CAPACITY = 8;

  private final ToLongFunction<? super V> keyOf;
  private Object[] values;
  private int size;
  private int mask;

  /**
   * @param keyOf each value's key, which must not change while the value is in the table
   */
  LongKeyTable(ToLongFunction<? super V> keyOf) {
    this.keyOf = keyOf;
    values = new Object[MIN_CAPACITY];
    mask = MIN_CAPACITY - 1;
  }

  int size() {
    return size;
  }

  /** The value whose key is {@code key}, or null. */
  @SuppressWarnings("unchecked")
  V get(long key) {
    int i = slot(key);
    while (true) {
      Object v = values[i];
      if (v == null || keyOf((V) v) == key) {
        return (V) v;
      }
      i = (i + 1) & mask;
    }
  }

  /** Puts {@code value} in place of any value with its key; returns that one or null. */
  @SuppressWarnings("unchecked")
  V put(V value) {
    long key = keyOf(value);
    int i = slot(key);
    while (true) {
      Object v = values[i];
      if (v == null) {
        values[i] = value;
        if (++size > (mask + 1) * 3 / 4) {
          resize((mask + 1) * 2);
        }
        return null;
      }
      if (keyOf((V) v) == key) {
        values[i] = value;
        return (V) v;
      }
      i = (i + 1) & mask;
    }
  }

  /** Removes the value whose key is {@code key}; returns it or null. */
  @SuppressWarnings("unchecked")
  V remove(long key) {
    int i = slot(key);
    while (true) {
      Object v = values[i];
      if (v == null) {
        return null;
      }
      if (keyOf((V) v) == key) {
        shiftBack(i);
        size--;
        return (V) v;
      }
      i = (i + 1) & mask;
    }
  }

  @SuppressWarnings("unchecked")
  void forEach(Consumer<? super V> action) {
    Object[] vs = values;
    for (Object v : vs) {
      if (v != null) {
        action.accept((V) v);
      }
    }
  }

  void clear() {
    values = new Object[MIN_CAPACITY];
    mask = MIN_CAPACITY - 1;
    size = 0;
  }

  /** Empties slot {@code hole}, moving later members of its probe run back so none is cut off. */
  @SuppressWarnings("unchecked")
  private void shiftBack(int hole) {
    int i = hole;
    while (true) {
      i = (i + 1) & mask;
      Object v = values[i];
      if (v == null) {
        break;
      }
      int home = slot(keyOf((V) v));
      // move the value at i into the hole unless its home lies cyclically in (hole, i]
      boolean stays = hole <= i ? (hole < home && home <= i) : (hole < home || home <= i);
      if (!stays) {
        values[hole] = v;
        hole = i;
      }
    }
    values[hole] = null;
  }

  @SuppressWarnings("unchecked")
  private void resize(int capacity) {
    Object[] old = values;
    values = new Object[capacity];
    mask = capacity - 1;
    for (Object v : old) {
      if (v != null) {
        int i = slot(keyOf((V) v));
        while (values[i] != null) {
          i = (i + 1) & mask;
        }
        values[i] = v;
      }
    }
  }

  private long keyOf(V value) {
    return keyOf.applyAsLong(value);
  }

  private int slot(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32)) & mask;
  }
}
