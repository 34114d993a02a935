package io.kvrouter.routing.schedule;

/**
 * A worker's speed as the router predicts it, for the predicted-TTFT cost: a prefill step of
 * {@code t} new tokens takes {@code prefill(t) = p2·t² + p1·t + p0} ms, a decode pass at KV usage
 * {@code u} takes {@code decode(u) = max(1, d2·u² + d1·u + d0)} ms, and a step computes at most
 * {@code chunkTokens} prompt tokens. {@link #MOCKER} holds Dynamo mocker's fit of a vLLM worker
 * (see {@code reference/dynamo-kv-router.md} §6) with vLLM's default token budget.
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

  /**
   * Predicted time until a request's first token on a worker that must first compute {@code
   * prefillTokens} prompt tokens (those queued ahead of it and its own uncached ones), in steps of
   * at most {@code chunkTokens}, each also running a decode pass at KV usage {@code usage}:
   *
   * <pre>
   *   steps = max(1, ceil(prefillTokens / chunkTokens))
   *   ttft  = (steps − 1) · prefill(chunkTokens) + prefill(last chunk) + steps · decode(usage)
   * </pre>
   */
  public double predictMillis(long prefillTokens, double usage) {
    long steps = Math.max(1, (prefillTokens + chunkTokens - 1) / chunkTokens);
    long last = prefillTokens - (steps - 1) * chunkTokens;
    double u = Math.min(1, Math.max(0, usage));
    double decode = Math.max(1, d2 * u * u + d1 * u + d0);
    return (steps - 1) * prefill(chunkTokens) + prefill(last) + steps * decode;
  }

  private double prefill(long tokens) {
    return tokens <= 0 ? 0 : p2 * tokens * tokens + p1 * tokens + p0;
  }
}
