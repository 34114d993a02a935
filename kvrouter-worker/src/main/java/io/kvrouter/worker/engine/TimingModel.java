package io.kvrouter.worker.engine;

/**
 * How long an engine step takes: Dynamo mocker's polynomial fits of a vLLM worker (see {@code
 * docs/interop.md} §4), in milliseconds,
 *
 * <pre>
 *   prefill(t) = 4.209989e-7·t² + 1.518344e-2·t + 16.50142     t = prompt tokens computed in the step
 *                                                               (0 when the step computes none)
 *   decode(u)  = max(1, −25.74·u² + 54.01·u + 5.74)             u = KV tokens held by running
 *                                                               requests / KV cache capacity in tokens
 *   step       = (prefill(t) + decode(u)) / speedup_ratio        decode counted only when the step
 *                                                               decodes at least one request
 * </pre>
 *
 * Cached prompt tokens cost nothing: that is where KV-aware routing saves time.
 *
 * @param speedupRatio how many times faster than the fitted GPU the engine runs ({@code
 *     --speedup-ratio}); the simulator uses 1, live workers a larger value to test quickly
 */
public record TimingModel(double speedupRatio) {

  public static final TimingModel DEFAULT = new TimingModel(1.0);

  public TimingModel {
    if (!(speedupRatio > 0) || Double.isInfinite(speedupRatio)) {
      throw new IllegalArgumentException("speedup ratio must be > 0: " + speedupRatio);
    }
  }

  /** Time to compute {@code tokens} uncached prompt tokens in one step, before speed-up. */
  public static double prefillMillis(long tokens) {
    if (tokens <= 0) {
      return 0;
    }
    double t = tokens;
    return 4.209989e-7 * t * t + 1.518344e-2 * t + 16.50142;
  }

  /** Time of one decode pass at KV usage {@code usage} (0..1), before speed-up. */
  public static double decodeMillis(double usage) {
    return Math.max(1.0, -25.74 * usage * usage + 54.01 * usage + 5.74);
  }

  /** The duration of a step, in ms. */
  public double stepMillis(long prefillTokens, boolean decodes, double usage) {
    double millis = prefillMillis(prefillTokens) + (decodes ? decodeMillis(usage) : 0);
    return millis / speedupRatio;
  }
}
