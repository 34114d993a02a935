package io.kvrouter.app;

import io.kvrouter.sim.report.PolicyRun;
import java.util.Locale;

/** The one-line-per-policy table {@code simulate} and {@code bench} print. */
final class ResultTable {
  private static final String HEADER_FORMAT =
      "%-13s %8s %6s %10s %10s %10s %10s %8s %8s %10s %10s %9s %6s";
  private static final String ROW_FORMAT =
      "%-13s %8d %6s %10.1f %10.1f %10.1f %10.1f %8.1f %8.1f %10.1f %10.1f %9.1f %6d";

  private ResultTable() {}

  static String header() {
    return String.format(
        Locale.ROOT, HEADER_FORMAT, "policy", "requests", "hit%", "ttft_mean", "ttft_p50",
        "ttft_p90", "ttft_p99", "itl_mean", "itl_p99", "e2e_mean", "e2e_p99", "out_tok/s",
        "max_q");
  }

  static String row(PolicyRun run) {
    String hit =
        run.hitRate() == null ? "-" : String.format(Locale.ROOT, "%.1f", run.hitRate() * 100);
    return String.format(
        Locale.ROOT, ROW_FORMAT, run.policy(), run.requests(), hit, run.ttftMs().mean(),
        run.ttftMs().p50(), run.ttftMs().p90(), run.ttftMs().p99(), run.itlMs().mean(),
        run.itlMs().p99(), run.e2eMs().mean(), run.e2eMs().p99(), run.outputTokensPerS(),
        run.maxQueue());
  }
}
