package io.kvrouter.testing;

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
}
