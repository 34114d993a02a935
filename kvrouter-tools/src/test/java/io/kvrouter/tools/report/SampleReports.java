package io.kvrouter.tools.report;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/** Reports for the tests, built from small, known numbers. */
final class SampleReports {
  static final List<String> WORKERS = List.of("worker-0", "worker-1", "worker-2");

  private SampleReports() {}

  static Map<String, String> settings() {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("trace", "mooncake_trace.jsonl");
    settings.put("workers", "3");
    settings.put("seed", "42");
    return settings;
  }

  /**
   * Three policies: {@code kv} (best TTFT and hit rate, a timeline), {@code round-robin} (a
   * timeline with gaps in its hit rate) and {@code bench} (a live run: no hit rate, no timeline).
   */
  static RunReport threePolicies() {
    return new RunReport(
        "simulate mooncake_trace.jsonl",
        settings(),
        List.of(
            run(
                "kv",
                0.6,
                new Latency(12.5, 10, 20, 40),
                samples(1, 2000),
                timeline(0.6, 0.7, 0.8)),
            run(
                "round-robin",
                0.25,
                new Latency(120, 100, 200, 400),
                samples(10, 20000),
                timeline(0.2, Double.NaN, 0.3)),
            run("bench", null, new Latency(60, 50, 90, 300), samples(5, 9000), null)));
  }

  static PolicyRun run(
      String policy, Double hitRate, Latency ttft, double[] ttftSamples, Timeline timeline) {
    return new PolicyRun(
        policy,
        ttftSamples.length,
        hitRate,
        ttft,
        new Latency(8, 7, 9, 15),
        new Latency(900, 800, 1500, 3000),
        1234.5,
        7,
        ttftSamples,
        timeline);
  }

  /** {@code count} samples spread evenly over {@code from..to} ms, in reverse order. */
  static double[] samples(double from, double to) {
    int count = 50;
    return IntStream.range(0, count).mapToDouble(i -> to - i * (to - from) / (count - 1)).toArray();
  }

  /** A 10-second-interval timeline of the given hit rates; worker w carries w + i requests. */
  static Timeline timeline(double... hitRate) {
    double[][] load = new double[WORKERS.size()][hitRate.length];
    for (int w = 0; w < WORKERS.size(); w++) {
      for (int i = 0; i < hitRate.length; i++) {
        load[w][i] = w + i;
      }
    }
    return new Timeline(10, WORKERS, hitRate, load);
  }
}
