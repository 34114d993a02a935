package io.kvrouter.tools.bench;

/**
 * The router's {@code kvrouter_router_kv_hit_rate} summary at one moment: the sum of the predicted
 * hit rates it recorded, one per routed request, and how many it recorded. The difference of two
 * readings gives the mean predicted hit rate of the requests routed in between.
 */
record HitCounts(double sum, double count) {
  /** A router that does not record hit rates (round-robin, random) reads as this. */
  static final HitCounts ZERO = new HitCounts(0, 0);

  /** Both summaries together: a fleet of routers as one. */
  HitCounts plus(HitCounts other) {
    return new HitCounts(sum + other.sum, count + other.count);
  }

  /**
   * The mean hit rate of the requests recorded since {@code earlier}; null when there were none.
   */
  Double rateSince(HitCounts earlier) {
    double requests = count - earlier.count;
    return requests > 0 ? (sum - earlier.sum) / requests : null;
  }
}
