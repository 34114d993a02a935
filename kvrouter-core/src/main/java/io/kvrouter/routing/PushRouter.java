package io.kvrouter.routing;

import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.AllWorkersBusyException;
import io.kvrouter.protocol.KvEventFeed;
import io.kvrouter.protocol.NoWorkerAvailableException;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.RouteExplanation;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerLoadReport;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.WorkerStatus;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.kvrouter.routing.index.KvEventSink;
import io.kvrouter.routing.index.KvIndexer;
import io.kvrouter.transport.RequestPlane;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Forwards each request to a worker chosen by a {@link WorkerSelector} among the healthy ones. A
 * worker that does not take a request is passed over for the next healthy one, until every worker
 * has been tried once. Only a worker fault (unreachable, connection lost, no answer) takes the
 * worker out of rotation until the {@link HealthProber} finds it back; a worker that merely refused
 * this request (overloaded, or its engine rejected it) stays in.
 *
 * <p>Each attempt holds the selector's {@link WorkerSelector.Booking} from the choice until the
 * request ends on that worker: released at once when the send fails, else when the stream ends.
 */
final class PushRouter implements Router {
  private final List<WorkerState> workers;
  private final RequestPlane plane;
  private final WorkerSelector selector;
  private final HealthProber prober;
  private final Counter routed;
  private final Counter busy;

  PushRouter(
      List<WorkerState> workers,
      RequestPlane plane,
      WorkerSelector selector,
      HealthProber prober,
      MeterRegistry meters) {
    this.workers = List.copyOf(workers);
    this.plane = plane;
    this.selector = selector;
    this.prober = prober;
    this.routed = decisions(meters, "routed");
    this.busy = decisions(meters, "busy");
  }

  private Counter decisions(MeterRegistry meters, String outcome) {
    return Counter.builder(MetricNames.ROUTING_DECISIONS)
        .description("Routing decisions by router mode and outcome")
        .tag(MetricNames.TAG_ROUTER_MODE, selector.mode())
        .tag(MetricNames.TAG_OUTCOME, outcome)
        .register(meters);
  }

  @Override
  public Future<ResponseStream> generate(String requestId, PreprocessedRequest request) {
    Set<String> tried = new HashSet<>();
    return dispatch(requestId, request, tried, null)
        .map(attempt -> new FailoverStream(this, requestId, request, tried, attempt));
  }

  /** One accepted send: the route taken and the worker's response stream. */
  record Attempt(WorkerSelector.Route route, ResponseStream stream) {
    WorkerState worker() {
      return route.worker();
    }
  }

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
    WorkerSelector.Route route;
    try {
      route = selector.select(requestId, request, candidates);
    } catch (AllWorkersBusyException e) {
      busy.increment();
      return Future.failedFuture(e);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    routed.increment();
    WorkerState worker = route.worker();
    tried.add(worker.id());
    worker.activeRequests.incrementAndGet();
    return plane
        .send(worker.endpoint, requestId, route.requestFor(request))
        .transform(
            ar -> {
              if (ar.succeeded()) {
                return Future.succeededFuture(new Attempt(route, ar.result()));
              }
              released(route);
              if (ar.cause() instanceof WorkerUnavailableException unavailable) {
                if (unavailable.workerFault()) {
                  workerFault(worker, unavailable);
                }
                return dispatch(requestId, request, tried, unavailable);
              }
              return Future.failedFuture(ar.cause());
            });
  }

  /** Called once when the request sent on {@code route} has ended there, however it ended. */
  void released(WorkerSelector.Route route) {
    route.worker().activeRequests.decrementAndGet();
    route.booking().release();
  }

  /** {@code worker} failed: out of rotation until probes find it back, its cache presumed lost. */
  void workerFault(WorkerState worker, Throwable cause) {
    prober.markUnhealthy(worker, cause);
    selector.workerLost(worker);
  }

  @Override
  public Optional<RouteExplanation> explain(PreprocessedRequest request) {
    List<WorkerState> healthy = workers.stream().filter(w -> w.healthy.get()).toList();
    return selector.explain(request, healthy);
  }

  @Override
  public Optional<KvEventSink> kvEventSink() {
    return selector.followsKvEvents()
        ? selector.kvIndex().map(KvEventSink.class::cast)
        : Optional.empty();
  }

  @Override
  public Optional<CompletionStage<List<RouterEvent>>> dumpKvIndex() {
    return selector.kvIndex().map(KvIndexer::dump);
  }

  @Override
  public void reportKvEventFeed(WorkerRank rank, Supplier<KvEventFeed> feed) {
    WorkerState worker =
        workers.stream()
            .filter(w -> w.id().equals(rank.workerId()))
            .findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no worker " + rank.workerId()));
    worker.reportKvEventFeed(rank.dpRank(), feed);
  }

  @Override
  public void reportLoad(WorkerLoadReport report) {
    for (WorkerState worker : workers) {
      if (worker.id().equals(report.rank().workerId())
          && report.rank().dpRank() < worker.ranks.size()) {
        worker.reportLoad(report);
        return;
      }
    }
  }

  @Override
  public List<WorkerStatus> workers() {
    return workers.stream().map(w -> w.status(selector.kvView(w))).toList();
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
                    workerFault(worker, failure);
                    return Future.succeededFuture();
                  }));
    }
    return Future.join(probes).mapEmpty();
  }

  @Override
  public void close() {
    prober.close();
    selector.close();
  }
}
