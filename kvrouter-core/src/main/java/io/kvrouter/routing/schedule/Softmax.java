package io.kvrouter.routing.schedule;

import java.util.function.DoubleSupplier;

/**
 * Dynamo's softmax sampling over costs (lower is likelier): {@code p_i ∝ exp(-(c_i - min) / ((max -
 * min) * T))}, uniform when every cost is equal. Dividing by the range makes the temperature
 * independent of the costs' scale: at {@code T = 1} the cheapest rank is {@code e} times as likely
 * as the dearest. One draw {@code u ~ U[0, 1)} walks the cumulative weights.
 */
final class Softmax {

  private Softmax() {}

  /** The index of the sampled cost; {@code costs} is not empty, {@code temperature > 0}. */
  static int sample(double[] costs, double temperature, DoubleSupplier uniform) {
    int n = costs.length;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (double cost : costs) {
      min = Math.min(min, cost);
      max = Math.max(max, cost);
    }
    double u = uniform.getAsDouble();
    if (max == min) {
      return Math.min(n - 1, (int) (u * n));
    }
    double scale = (max - min) * temperature;
    double[] weights = new double[n];
    double sum = 0;
    for (int i = 0; i < n; i++) {
      weights[i] = Math.exp(-(costs[i] - min) / scale);
      sum += weights[i];
    }
    double target = u * sum;
    double cumulative = 0;
    int last = 0;
    for (int i = 0; i < n; i++) {
      if (weights[i] > 0) {
        cumulative += weights[i];
        last = i;
        if (target < cumulative) {
          return i;
        }
      }
    }
    return last;
  }
}
