package io.kvrouter.tools.report;

import java.util.Objects;

/**
 * What one replay of a trace under one routing policy measured.
 *
 * @param policy the policy's name, e.g. {@code kv}
 * @param requests requests completed
 * @param hitRate in the simulator, prompt tokens the engines found cached over all prompt tokens;
 *     in a live benchmark, the mean over requests of the router's predicted hit rate ({@code
 *     kvrouter_router_kv_hit_rate}), which weighs short prompts as much as long ones; null when not
 *     known (round-robin and random routers predict none)
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
