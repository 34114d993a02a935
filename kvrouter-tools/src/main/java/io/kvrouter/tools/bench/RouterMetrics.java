package io.kvrouter.tools.bench;

import io.kvrouter.metrics.MetricNames;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What the benchmark reads from the router's Prometheus text ({@code GET /metrics}). */
final class RouterMetrics {
  private static final String HIT_RATE_SUM = MetricNames.ROUTER_KV_HIT_RATE + "_sum";
  private static final String HIT_RATE_COUNT = MetricNames.ROUTER_KV_HIT_RATE + "_count";
  private static final String DECISIONS = MetricNames.ROUTING_DECISIONS + "_total";
  private static final Pattern MODE =
      Pattern.compile(MetricNames.TAG_ROUTER_MODE + "=\"([^\"]*)\"");

  private RouterMetrics() {}

  /** The predicted hit-rate summary; {@link HitCounts#ZERO} when the router does not export it. */
  static HitCounts hitCounts(String text) {
    return new HitCounts(sum(text, HIT_RATE_SUM), sum(text, HIT_RATE_COUNT));
  }

  /** The router's mode ({@code kv}, {@code round-robin}, ...) from its routing-decision counter. */
  static Optional<String> routerMode(String text) {
    for (String line : text.split("\n")) {
      if (line.startsWith(DECISIONS + "{")) {
        Matcher mode = MODE.matcher(line);
        if (mode.find()) {
          return Optional.of(mode.group(1));
        }
      }
    }
    return Optional.empty();
  }

  /** The sum of the samples named exactly {@code metric}, whatever their labels; 0 if none. */
  static double sum(String text, String metric) {
    double sum = 0;
    for (String line : text.split("\n")) {
      if (line.startsWith(metric + "{") || line.startsWith(metric + " ")) {
        int labelsEnd = line.lastIndexOf('}');
        String[] rest =
            line.substring(labelsEnd < 0 ? metric.length() : labelsEnd + 1).trim().split("\\s+");
        sum += Double.parseDouble(rest[0]);
      }
    }
    return sum;
  }
}
