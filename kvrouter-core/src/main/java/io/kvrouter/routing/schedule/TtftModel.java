package io.kvrouter.routing.schedule;

/**
 * A worker's speed as the router predicts it, for the predicted-TTFT cost: a prefill step of {@code
 * t} new tokens takes {@code prefill(t) = p2·t² + p1·t + p0} ms, a decode pass at KV usage {@code
 * u} takes {@code decode(u) = max(1, d2·u² + d1·u + d0)} ms, and a step computes at most {@code
 * chunkTokens} prompt tokens. {@link #MOCKER} holds Dynamo mocker's fit of a vLLM worker (see
 * {@code docs/interop.md} §4) with vLLM's large-GPU default token budget.
 */
public record TtftModel(
    double p2, double p1, double p0, double d2, double d1, double d0, int chunkTokens) {

  public static final TtftModel MOCKER =
      new TtftModel(4.209989e-7, 1.518344e-2, 16.50142, -25.74, 54.01, 5.74, 8192);

  public TtftModel {
    if (chunkTokens < 1) {
      throw new IllegalArgumentException("chunkTokens must be >= 1: " + chunkTokens);
    }
  }

  /** This model with steps of at most {@code tokens} prompt tokens. */
  public TtftModel withChunkTokens(int tokens) {
    return new TtftModel(p2, p1, p0, d2, d1, d0, tokens);
  }

  /**
   * How many times a request's uncached prefill time is charged on top of its own time to first
   * token, for the requests that will queue behind it: work sent to a rank that lacks the prefix
   * delays everything after it there, and recomputing a prefix cached elsewhere is capacity the
   * whole fleet loses. With 0 the policy chases the shortest queue and, near saturation, scatters
   * prefixes until every worker recomputes them; weights from 2 to 5 gave results within a few
   * percent of each other on the Mooncake trace (docs/benchmarks.md), and 3 is their middle.
   */
  public static final double DELAY_WEIGHT = 3;

  /**
   * The predicted-TTFT cost of sending a request to a rank, in ms:
   *
   * <pre>
   *   cost = ttft(prefillTokens, usage) + DELAY_WEIGHT · prefill(newPrefillTokens)
   *   ttft(P, u) = prefill(P) + steps(P) · decode(u)            steps(P) = max(1, ceil(P / chunkTokens))
   *   prefill(P) = (steps(P) − 1) · prefill_step(chunkTokens) + prefill_step(last chunk)
   * </pre>
   *
   * @param prefillTokens prompt tokens the rank computes before the request's first token: those
   *     queued ahead of it and its own uncached ones
   * @param newPrefillTokens the request's own uncached prompt tokens on the rank
   * @param usage the rank's KV usage with the request on it, 0..1
   */
  public double costMillis(long prefillTokens, long newPrefillTokens, double usage) {
    double u = Math.min(1, Math.max(0, usage));
    double decode = Math.max(1, d2 * u * u + d1 * u + d0);
    return prefillMillis(prefillTokens)
        + steps(prefillTokens) * decode
        + DELAY_WEIGHT * prefillMillis(newPrefillTokens);
  }

  /** Time to compute {@code tokens} prompt tokens in chunks of at most {@code chunkTokens}. */
  public double prefillMillis(long tokens) {
    long steps = steps(tokens);
    long last = tokens - (steps - 1) * chunkTokens;
    return (steps - 1) * step(chunkTokens) + step(last);
  }

  private long steps(long tokens) {
    return Math.max(1, (tokens + chunkTokens - 1) / chunkTokens);
  }

  private double step(long tokens) {
    return tokens <= 0 ? 0 : p2 * tokens * tokens + p1 * tokens + p0;
  }
}
