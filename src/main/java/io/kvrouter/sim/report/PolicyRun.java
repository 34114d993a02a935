package io.kvrouter.sim.report;

import java.util.Objects;

/**
 * What one replay of a trace under one routing policy measured.
 *
 * @param policy the policy's name, e.g. {@code kv}
 * @param requests requests completed
 * @param hitRate prompt tokens served from KV cache over all prompt tokens; null when not known
 *     (a live benchmark sees only what the router reports)
 * @param ttftMs time to first token
 * @param itlMs time between consecutive tokens of a request, over all tokens after the first
 * @param e2eMs time from arrival to the last token
 * @param outputTokensPerS output tokens over the time from the first arrival to the last token
 * @param maxQueue most requests waiting at once (queued, not yet running) on any one worker, or,
 *     for a live benchmark, in flight at the client
 * @param ttftSamplesMs every request's time to first token, for the CDF chart
 * @param timeline hit rate and per-worker load over time; null when not recorded
 */
public record PolicyRun(
    String policy,
    int requests,
    Double hitRate,
    Latency ttftMs,
    Latency itlMs,
    Latency e2eMs,
    double outputTokensPerS,
    int maxQueue,
    double[] ttftSamplesMs,
    Timeline timeline) {

  public PolicyRun {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(ttftMs, "ttftMs");
    Objects.requireNonNull(itlMs, "itlMs");
    Objects.requireNonNull(e2eMs, "e2eMs");
    Objects.requireNonNull(ttftSamplesMs, "ttftSamplesMs");
  }
}
