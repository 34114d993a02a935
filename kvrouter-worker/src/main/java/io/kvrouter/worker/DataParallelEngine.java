package io.kvrouter.worker;

import io.kvrouter.protocol.InferenceEngine;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.ResponseStream;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalInt;

/**
 * A worker's data-parallel ranks behind one request-plane endpoint, each a {@link SimulatedEngine}
 * with its own KV cache. A request goes to the rank the router chose ({@code routing.dp_rank}), or,
 * without one, to the rank holding KV blocks for the fewest requests.
 */
public final class DataParallelEngine implements InferenceEngine {
  private final List<SimulatedEngine> ranks;

  public DataParallelEngine(List<SimulatedEngine> ranks) {
    if (ranks.isEmpty()) {
      throw new IllegalArgumentException("a worker has at least one data-parallel rank");
    }
    this.ranks = List.copyOf(ranks);
  }

  /**
   * @throws IllegalArgumentException if the request names a rank this worker does not have
   */
  @Override
  public ResponseStream generate(String requestId, PreprocessedRequest request) {
    OptionalInt chosen = request.dpRank();
    SimulatedEngine engine;
    if (chosen.isPresent()) {
      int rank = chosen.getAsInt();
      if (rank < 0 || rank >= ranks.size()) {
        throw new IllegalArgumentException(
            "routing.dp_rank "
                + rank
                + " is not a rank of this worker (it has "
                + ranks.size()
                + ")");
      }
      engine = ranks.get(rank);
    } else {
      engine = ranks.stream().min(Comparator.comparingInt(r -> r.kvCache().activeRequests())).get();
    }
    return engine.generate(requestId, request);
  }

  public List<SimulatedEngine> ranks() {
    return ranks;
  }
}
