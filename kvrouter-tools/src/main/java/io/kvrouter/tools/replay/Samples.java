package io.kvrouter.tools.replay;

import java.util.Arrays;

/** A growable array of doubles: latency samples without boxing. */
final class Samples {
  private double[] values = new double[1024];
  private int size;

  void add(double value) {
    if (size == values.length) {
      values = Arrays.copyOf(values, size * 2);
    }
    values[size++] = value;
  }

  double[] toArray() {
    return Arrays.copyOf(values, size);
  }
}
