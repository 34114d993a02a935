package io.kvrouter.tools.report;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A replay of one trace under one or more policies.
 *
 * @param title what was run, e.g. {@code simulate mooncake_synthetic_trace.jsonl}
 * @param settings the run's settings by name (trace, workers, seed, ...), in display order
 * @param policies one result per policy, in the order run
 */
public record RunReport(String title, Map<String, String> settings, List<PolicyRun> policies) {
  public RunReport {
    settings = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(settings));
    policies = List.copyOf(policies);
  }
}
