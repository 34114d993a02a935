package io.kvrouter.routing;

import io.kvrouter.protocol.WorkerRank;
import java.util.List;

/**
 * A worker a {@link RoutingPolicy} may choose for a request. The live router's candidates are its
 * healthy workers not yet tried for the request, with the KV capacity from their configuration or
 * their load reports; the simulator's are its fixed workers. The KV policies weigh each
 * data-parallel rank on its own (each has its own KV cache); the others choose a worker, which
 * picks its rank itself. Requests in flight are not here: a policy that weighs them counts its own
 * bookings.
 */
public interface RouteCandidate {

  /** The worker's id. */
  String workerId();

  /** Its data-parallel ranks, 0 .. dpSize - 1; one without data parallelism. */
  List<WorkerRank> ranks();

  /**
   * The KV blocks rank {@code dpRank} can hold; 0 when unknown, which turns the
   * active-decode-blocks busy filter off for it.
   */
  long totalKvBlocks(int dpRank);

  /** The KV blocks rank {@code dpRank} reports in use itself; -1 when it reports none. */
  long reportedActiveBlocks(int dpRank);
}
