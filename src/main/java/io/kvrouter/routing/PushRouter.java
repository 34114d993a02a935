package io.kvrouter.routing;

import io.kvrouter.protocol.NoWorkerAvailableException;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.kvrouter.transport.RequestPlane;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Forwards each request to a worker chosen by a {@link WorkerSelector} among the healthy ones.
 * A worker that does not take a request is passed over for the next healthy one, until every
 * worker has been tried once. Only a worker fault (unreachable, connection lost, no answer) takes
 * the worker out of rotation until the {@link HealthProber} finds it back; a worker that merely
 * refused this request (overloaded, or its engine rejected it) stays in.
 */
final class PushRouter implements Router {
  private final List<WorkerState> workers;
  private final RequestPlane plane;
  private final WorkerSelector selector;
  private final HealthProber prober;

  PushRouter(
      List<WorkerEndpoint> endpoints,
      RequestPlane plane,
      WorkerSelector selector,
      HealthProber prober) {
    this.workers = endpoints.stream().map(WorkerState::new).toList();
    this.plane = plane;
    this.selector = selector;
    this.prober = prober;
  }

  @Override
  public Future<ResponseStream> generate(String requestId, PreprocessedRequest request) {
    Set<String> tried = new HashSet<>();
    return dispatch(requestId, request, tried, null)
        .map(attempt -> new FailoverStream(this, requestId, request, tried, attempt));
  }

  /** One accepted send: the worker that took the request and its response stream. */
  record Attempt(WorkerState worker, ResponseStream stream) {}

  /** Sends to the next healthy worker not in {@code tried}, moving on when one fails. */
  Future<Attempt> dispatch(
      String requestId, PreprocessedRequest request, Set<String> tried, Throwable lastFailure) {
    List<WorkerState> candidates = new ArrayList<>(workers.size());
    for (WorkerState worker : workers) {
      if (worker.healthy.get() && !tried.contains(worker.id())) {
        candidates.add(worker);
      }
    }
    if (candidates.isEmpty()) {
      String message =
          lastFailure == null
              ? "No healthy worker is available"
              : "No worker could take the request; last failure: " + lastFailure.getMessage();
      return Future.failedFuture(new NoWorkerAvailableException(message));
    }
    WorkerState worker = candidates.get(selector.select(candidates));
    tried.add(worker.id());
    worker.activeRequests.incrementAndGet();
    return plane
        .send(worker.endpoint, requestId, request)
        .transform(
            ar -> {
              if (ar.succeeded()) {
                return Future.succeededFuture(new Attempt(worker, ar.result()));
              }
              worker.activeRequests.decrementAndGet();
              if (ar.cause() instanceof WorkerUnavailableException unavailable) {
                if (unavailable.workerFault()) {
                  prober.markUnhealthy(worker, unavailable);
                }
                return dispatch(requestId, request, tried, unavailable);
              }
              return Future.failedFuture(ar.cause());
            });
  }

  /** Called once when a stream sent to {@code worker} has ended, however it ended. */
  void released(WorkerState worker) {
    worker.activeRequests.decrementAndGet();
  }

  void failedBeforeOutput(WorkerState worker, Throwable cause) {
    prober.markUnhealthy(worker, cause);
  }

  @Override
  public List<WorkerStatus> workers() {
    return workers.stream().map(WorkerState::status).toList();
  }

  @Override
  public Future<Void> start() {
    List<Future<Void>> probes = new ArrayList<>();
    for (WorkerState worker : workers) {
      probes.add(
          plane
              .probe(worker.endpoint)
              .recover(
                  failure -> {
                    prober.markUnhealthy(worker, failure);
                    return Future.succeededFuture();
                  }));
    }
    return Future.join(probes).mapEmpty();
  }

  @Override
  public void close() {
    prober.close();
  }
}
