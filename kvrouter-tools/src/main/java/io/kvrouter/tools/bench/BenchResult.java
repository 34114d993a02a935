package io.kvrouter.tools.bench;

import io.kvrouter.tools.report.RunReport;
import java.util.List;

/**
 * What a benchmark run gives back.
 *
 * @param report the run for {@code results.json} and {@code report.html}
 * @param completed every request that completed, in trace order
 * @param failed how many requests failed
 * @param errors the first few failures, each naming its request and what went wrong
 */
public record BenchResult(
    RunReport report, List<RequestResult> completed, int failed, List<String> errors) {
  public BenchResult {
    completed = List.copyOf(completed);
    errors = List.copyOf(errors);
  }
}
