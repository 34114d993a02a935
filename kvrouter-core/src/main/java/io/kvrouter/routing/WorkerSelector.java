package io.kvrouter.routing;

import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.RouteExplanation;
import io.kvrouter.protocol.WorkerStatus;
import io.kvrouter.routing.index.KvIndexer;
import java.util.List;
import java.util.Optional;

/**
 * A router mode's policy: which worker takes a request, and what the policy keeps about the
 * requests it routed. Called from any thread (event loops); implementations are thread-safe and
 * never block.
 */
interface WorkerSelector {

  /**
   * Chooses the worker for {@code requestId} among {@code candidates} (healthy, not yet tried for
   * this request, never empty) and books the request on it; the caller releases the booking when
   * the request ends there, however it ends.
   *
   * @throws io.kvrouter.protocol.AllWorkersBusyException when a busy threshold excludes every
   *     candidate
   */
  Route select(String requestId, PreprocessedRequest request, List<WorkerState> candidates);

  /**
   * What {@link #select} would choose among {@code candidates} and why, booking nothing; empty when
   * this policy has no costs to show.
   */
  default Optional<RouteExplanation> explain(
      PreprocessedRequest request, List<WorkerState> candidates) {
    return Optional.empty();
  }

  /** The policy's view of {@code worker}'s KV load and cache; empty when it keeps none. */
  default Optional<WorkerStatus.KvView> kvView(WorkerState worker) {
    return Optional.empty();
  }

  /** Where the workers' KV cache events go, when this policy follows them. */
  default Optional<KvIndexer> kvIndex() {
    return Optional.empty();
  }

  /** Whether the index follows the workers' KV cache events (else it learns from decisions). */
  default boolean followsKvEvents() {
    return false;
  }

  /** {@code worker} failed (unreachable or died): whatever it cached is presumed lost. */
  default void workerLost(WorkerState worker) {}

  /** The name of the router mode, for metrics. */
  String mode();

  /** Stops background work. */
  default void close() {}

  /**
   * A worker chosen for one request, and the booking to keep until the request ends there; {@code
   * dpRank} is the data-parallel rank of the worker chosen too, null when the worker chooses.
   */
  record Route(WorkerState worker, Booking booking, Integer dpRank) {
    Route(WorkerState worker, Booking booking) {
      this(worker, booking, null);
    }

    /** {@code request} as the worker must receive it: for the chosen rank, if one was chosen. */
    PreprocessedRequest requestFor(PreprocessedRequest request) {
      return dpRank == null ? request : request.withDpRank(dpRank);
    }
  }

  /** The load a routed request holds in the selector's books. */
  interface Booking {
    /** For policies that book nothing. */
    Booking NONE =
        new Booking() {
          @Override
          public void firstOutput() {}

          @Override
          public void release() {}
        };

    /** The worker produced the request's first output: its prompt is prefilled. */
    void firstOutput();

    /** The request ended on the worker (completed, failed or cancelled); called at most once. */
    void release();
  }
}
