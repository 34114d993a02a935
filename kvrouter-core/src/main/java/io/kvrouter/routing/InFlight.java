package io.kvrouter.routing;

import io.kvrouter.protocol.WorkerRank;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Requests in flight per rank, as the router counts them: from routing to end. */
final class InFlight {
  private final List<WorkerRank> ranks;
  private final int[] counts;
  private final Map<String, Integer> rankOf = new HashMap<>();

  InFlight(List<WorkerRank> ranks) {
    this.ranks = List.copyOf(ranks);
    this.counts = new int[ranks.size()];
  }

  List<WorkerRank> ranks() {
    return ranks;
  }

  int count(int rank) {
    return counts[rank];
  }

  /** The rank with the fewest requests in flight; the first such. */
  int leastLoaded() {
    int best = 0;
    for (int i = 1; i < counts.length; i++) {
      if (counts[i] < counts[best]) {
        best = i;
      }
    }
    return best;
  }

  WorkerRank book(String requestId, int rank) {
    counts[rank]++;
    rankOf.put(requestId, rank);
    return ranks.get(rank);
  }

  void finished(String requestId) {
    Integer rank = rankOf.remove(requestId);
    if (rank != null) {
      counts[rank]--;
    }
  }
}
