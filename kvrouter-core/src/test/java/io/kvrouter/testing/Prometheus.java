package io.kvrouter.testing;

import java.util.Map;

/** Reads samples out of Prometheus text exposition format. */
public final class Prometheus {
  private Prometheus() {}

  /** The sum of every sample named exactly {@code metric}, whatever its labels; 0 if none. */
  public static double sum(String text, String metric) {
    double sum = 0;
    for (String line : text.split("\n")) {
      if (line.startsWith(metric + "{") || line.startsWith(metric + " ")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  /**
   * The sum of the samples named exactly {@code metric} whose labels include every one of {@code
   * labels} (name → value); 0 if none.
   */
  public static double sum(String text, String metric, Map<String, String> labels) {
    double sum = 0;
    for (String line : text.split("\n")) {
      if (line.startsWith(metric + "{")
          && labels.entrySet().stream()
              .allMatch(l -> line.contains(l.getKey() + "=\"" + l.getValue() + "\""))) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }
}
