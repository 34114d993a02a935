package io.kvrouter.routing.index;

import java.util.function.Consumer;

/**
 * A map from {@code long} to non-null values: open addressing with linear probing and
 * backward-shift deletion, so lookups of block hashes neither box nor chase entry objects. Not
 * thread-safe.
 */
final class LongMap<V> {
  private static final int MIN_CAPACITY = 8;

  private long[] keys;
  private Object[] values;
  private int size;
  private int mask;

  LongMap() {
    keys = new long[MIN_CAPACITY];
    values = new Object[MIN_CAPACITY];
    mask = MIN_CAPACITY - 1;
  }

  int size() {
    return size;
  }

  @SuppressWarnings("unchecked")
  V get(long key) {
    int i = slot(key);
    while (true) {
      Object v = values[i];
      if (v == null || keys[i] == key) {
        return (V) v;
      }
      i = (i + 1) & mask;
    }
  }

  /** Maps {@code key} to {@code value}; returns the previous value or null. */
  @SuppressWarnings("unchecked")
  V put(long key, V value) {
    if (value == null) {
      throw new NullPointerException("value");
    }
    int i = slot(key);
    while (true) {
      Object v = values[i];
      if (v == null) {
        keys[i] = key;
        values[i] = value;
        if (++size > (mask + 1) * 3 / 4) {
          resize((mask + 1) * 2);
        }
        return null;
      }
      if (keys[i] == key) {
        values[i] = value;
        return (V) v;
      }
      i = (i + 1) & mask;
    }
  }

  /** Removes {@code key}; returns its value or null. */
  @SuppressWarnings("unchecked")
  V remove(long key) {
    int i = slot(key);
    while (true) {
      Object v = values[i];
      if (v == null) {
        return null;
      }
      if (keys[i] == key) {
        shiftBack(i);
        size--;
        return (V) v;
      }
      i = (i + 1) & mask;
    }
  }

  @SuppressWarnings("unchecked")
  void forEachValue(Consumer<? super V> action) {
    Object[] vs = values;
    for (Object v : vs) {
      if (v != null) {
        action.accept((V) v);
      }
    }
  }

  void clear() {
    keys = new long[MIN_CAPACITY];
    values = new Object[MIN_CAPACITY];
    mask = MIN_CAPACITY - 1;
    size = 0;
  }

  /** Empties slot {@code hole}, moving later members of its probe run back so none is cut off. */
  private void shiftBack(int hole) {
    int i = hole;
    while (true) {
      i = (i + 1) & mask;
      Object v = values[i];
      if (v == null) {
        break;
      }
      int home = slot(keys[i]);
      // move the entry at i into the hole unless its home lies cyclically in (hole, i]
      boolean stays = hole <= i ? (hole < home && home <= i) : (hole < home || home <= i);
      if (!stays) {
        keys[hole] = keys[i];
        values[hole] = v;
        hole = i;
      }
    }
    values[hole] = null;
    keys[hole] = 0;
  }

  private void resize(int capacity) {
    long[] oldKeys = keys;
    Object[] oldValues = values;
    keys = new long[capacity];
    values = new Object[capacity];
    mask = capacity - 1;
    for (int j = 0; j < oldValues.length; j++) {
      Object v = oldValues[j];
      if (v != null) {
        int i = slot(oldKeys[j]);
        while (values[i] != null) {
          i = (i + 1) & mask;
        }
        keys[i] = oldKeys[j];
        values[i] = v;
      }
    }
  }

  private int slot(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32)) & mask;
  }
}
