package io.kvrouter.routing;

import io.kvrouter.protocol.KvEventFeed;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.RouteExplanation;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerLoadReport;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.WorkerStatus;
import io.kvrouter.routing.index.KvEventSink;
import io.vertx.core.Future;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/** Picks a worker for each request and forwards it there. */
public interface Router {

  /**
   * Sends {@code request} to a healthy worker. A worker that cannot take the request, or fails
   * before its first output, is passed over for the next healthy one without the caller seeing it;
   * one that fails later is replaced the same way, the request continuing from its tokens so far,
   * as often as the router's {@link Migration} allows. Fails with {@link
   * io.kvrouter.protocol.NoWorkerAvailableException} when no worker can take it.
   */
  Future<ResponseStream> generate(String requestId, PreprocessedRequest request);

  /**
   * Why the router would send {@code request} where it would, without sending or booking anything;
   * empty when the router mode has no costs to show (every mode but {@code kv} and {@code approx}).
   */
  Optional<RouteExplanation> explain(PreprocessedRequest request);

  /**
   * Where event-plane subscribers deliver the workers' KV cache events; empty unless the router
   * runs in kv mode with KV events.
   */
  Optional<KvEventSink> kvEventSink();

  /**
   * The KV index's state as events that rebuild it (see {@link
   * io.kvrouter.routing.index.KvIndexer#dump}), after the events given before this call; empty
   * outside the kv and approx modes.
   */
  Optional<CompletionStage<List<RouterEvent>>> dumpKvIndex();

  /**
   * Shows {@code feed} in the status of {@code rank}'s worker: how the event-plane subscriber that
   * follows that rank's KV cache events is doing. A worker of several ranks shows them {@linkplain
   * KvEventFeed#combine combined}.
   */
  void reportKvEventFeed(WorkerRank rank, Supplier<KvEventFeed> feed);

  /**
   * Takes a worker's own load report (from the event plane): its KV capacity and blocks in use feed
   * the busy thresholds and {@code /router/workers}. Reports of unknown workers, or of data
   * parallel ranks other than 0 of a static worker, are ignored.
   */
  void reportLoad(WorkerLoadReport report);

  /**
   * The most tokens, prompt and completion together, that the largest KV cache among the workers
   * can hold for one request (a rank's blocks times the block size); empty when some worker's
   * capacity is unknown (declared by neither {@code kv-blocks} nor a fresh load report), since that
   * worker might hold more. A request over it can never be served.
   */
  OptionalLong largestKvCapacityTokens();

  /**
   * Adds a worker to the set the router routes to: it may take the next request, with every
   * data-parallel rank of it, and in kv mode its KV events are followed from now on ({@link
   * #kvEventSink}). Once {@link #start} has run it is probed at once, as the first workers are by
   * {@code start}, and taken out of rotation if it does not answer. Safe from any thread; never
   * blocks.
   *
   * @throws IllegalArgumentException when a worker of that id is in the set
   */
  void addWorker(RouteTarget worker);

  /**
   * Takes worker {@code workerId} out of the set: no request is sent there from this call on, and
   * everything the router keeps for it goes (KV index entries of all its ranks, loads, bookings,
   * health probing, its status). Requests already streaming from it are left running: a worker that
   * leaves discovery may still be finishing them; if its stream breaks, the request fails over or
   * migrates as on any worker. A worker of the same id may be added again afterwards, and starts
   * from nothing. Safe from any thread; never blocks.
   *
   * @return false when no worker of that id was in the set
   */
  boolean removeWorker(String workerId);

  /** A snapshot of every worker, in the order they joined. */
  List<WorkerStatus> workers();

  default boolean hasHealthyWorker() {
    return workers().stream().anyMatch(WorkerStatus::healthy);
  }

  /** Probes every worker once, so unreachable workers are known before traffic arrives. */
  Future<Void> start();

  /** Stops health probing and the router mode's background work. */
  void close();
}
