package io.kvrouter.app;

import io.kvrouter.config.WorkerSpec;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.routing.RouteTarget;
import io.kvrouter.routing.Router;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's workers as a set that changes while it runs: the one place where a worker joins or
 * leaves. The {@code --worker} list and the simulated workers join through it at start; a discovery
 * backend calls it as workers appear and vanish.
 *
 * <ul>
 *   <li>{@link #join}: the worker becomes a routing target at once (every data-parallel rank, KV
 *       costs included, probed once the router has started), then its KV event sources are
 *       followed: a vLLM publisher's ranks subscribed and replayed, a Dynamo worker's ranks asked
 *       for their tree dumps.
 *   <li>{@link #leave}: the router sends it nothing more from the call on and drops what it kept
 *       for it (KV index entries, loads, bookings, health probing), then its event sources are
 *       closed and forgotten. Requests streaming from it are not cut: a worker that leaves
 *       discovery may still be finishing them, and one whose stream breaks fails over or migrates
 *       as on any worker.
 * </ul>
 *
 * <p>Threads: calls are serialized on the fleet and may block for a while (ZeroMQ sockets are
 * connected, subscriber threads joined), so they belong on a discovery or start-up thread, never on
 * an event loop; routing goes on meanwhile on the event loops without waiting for them.
 */
public final class WorkerFleet {
  private static final Logger log = LoggerFactory.getLogger(WorkerFleet.class);

  private final Router router;
  private final WorkerEventSources events;
  private final Function<WorkerSpec, WorkerEndpoint> endpoints;

  /** The workers in the set, in the order they joined. */
  private final Map<String, WorkerSpec> members = new LinkedHashMap<>();

  /**
   * @param endpoints where each worker is reached on the request plane
   */
  WorkerFleet(
      Router router, WorkerEventSources events, Function<WorkerSpec, WorkerEndpoint> endpoints) {
    this.router = router;
    this.events = events;
    this.endpoints = endpoints;
  }

  /**
   * Adds {@code worker} to the set. A worker of the same id and the same spec already in the set is
   * left as it is; one with another spec (a worker that moved or changed) leaves first, then joins
   * as {@code worker}.
   *
   * @throws RuntimeException when its event sources cannot be followed; it is then not in the set
   */
  public void join(WorkerSpec worker) {
    join(worker, endpoints.apply(worker));
  }

  /**
   * Adds {@code worker}, reached at {@code endpoint} (a discovered worker's, as its record gives
   * it), as {@link #join(WorkerSpec)} does.
   */
  public synchronized void join(WorkerSpec worker, WorkerEndpoint endpoint) {
    Objects.requireNonNull(worker, "worker");
    Objects.requireNonNull(endpoint, "endpoint");
    WorkerSpec present = members.get(worker.id());
    if (worker.equals(present)) {
      return;
    }
    if (present != null) {
      leave(worker.id());
    }
    router.addWorker(new RouteTarget(endpoint, worker.kvBlocks(), worker.dpSize()));
    try {
      events.follow(worker, endpoint);
    } catch (RuntimeException e) {
      router.removeWorker(worker.id());
      throw e;
    }
    members.put(worker.id(), worker);
    log.info("worker {} joined at {}", worker.id(), endpoint.address());
  }

  /**
   * Takes worker {@code workerId} out of the set.
   *
   * @return false when it was not in the set
   */
  public synchronized boolean leave(String workerId) {
    if (members.remove(workerId) == null) {
      return false;
    }
    router.removeWorker(workerId);
    events.unfollow(workerId);
    return true;
  }

  /** The workers in the set, in the order they joined. */
  public synchronized List<WorkerSpec> workers() {
    return List.copyOf(members.values());
  }
}
