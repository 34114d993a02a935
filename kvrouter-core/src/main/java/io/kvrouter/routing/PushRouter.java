package io.kvrouter.routing;

import io.kvrouter.common.Ticker;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.AllWorkersBusyException;
import io.kvrouter.protocol.InvalidRequestException;
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
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.routing.index.KvEventSink;
import io.kvrouter.transport.RequestPlane;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forwards each request to a worker chosen by a {@link RoutingPolicy} among the healthy ones. A
 * worker that does not take a request is passed over for the next healthy one, until every worker
 * has been tried once. Only a worker fault (unreachable, connection lost, no answer) takes the
 * worker out of rotation until the {@link HealthProber} finds it back; a worker that merely refused
 * this request (overloaded, or its engine rejected it) stays in. Every response stream is watched
 * by {@link StalledStreams}, so a worker that stops sending fails its streams instead of holding
 * them. A stream that breaks after output continues on another worker while the request has
 * {@linkplain Migration migrations} left ({@link FailoverStream}).
 *
 * <p>Each attempt holds the policy's {@link RoutingPolicy.Booking} from the choice until the
 * request ends on that worker: released at once when the send fails, else when the stream ends. The
 * prompt is hashed once per request, and only if the policy looks at its blocks.
 *
 * <p>The set of workers changes at run time ({@link #addWorker}, {@link #removeWorker}): it is an
 * immutable list swapped under the router's lock, which only those two calls take, so routing reads
 * it without a lock. A request routed while its chosen worker leaves is routed again before it is
 * sent. KV events reach the policy only for workers in the set, each checked and handed over under
 * the worker's entry in {@link #byId}, so once a worker's removal has been queued in the index no
 * event of that worker can be queued behind it.
 */
final class PushRouter implements Router {
  private static final Logger LOG = LoggerFactory.getLogger(PushRouter.class);

  /** The workers, in the order they joined; replaced whole, under {@code this}. */
  private volatile List<WorkerState> workers;

  /** The same workers by id. */
  private final Map<String, WorkerState> byId = new ConcurrentHashMap<>();

  /** Set by {@link #start}: workers that join later are probed when they join. */
  private volatile boolean started;

  private final RequestPlane plane;
  private final RoutingPolicy policy;
  private final BlockHasher hasher;
  private final HealthProber prober;
  private final StalledStreams stalledStreams;
  private final Counter routedDecisions;
  private final Counter busyDecisions;
  private final Migration migration;
  private final MeterRegistry meters;

  /**
   * @param hasher hashes the prompts' blocks for the policy
   * @param stalledStreams watches every response stream for a worker that stops sending
   * @param migration how often a request whose stream breaks mid-way may continue elsewhere
   */
  PushRouter(
      List<WorkerState> workers,
      RequestPlane plane,
      RoutingPolicy policy,
      BlockHasher hasher,
      HealthProber prober,
      StalledStreams stalledStreams,
      Migration migration,
      MeterRegistry meters) {
    this.workers = List.of();
    this.plane = plane;
    this.policy = policy;
    workers.forEach(this::join);
    this.hasher = hasher;
    this.prober = prober;
    this.stalledStreams = stalledStreams;
    this.routedDecisions = decisions(meters, "routed");
    this.busyDecisions = decisions(meters, "busy");
    this.migration = migration;
    this.meters = meters;
  }

  private Counter decisions(MeterRegistry meters, String outcome) {
    return Counter.builder(MetricNames.ROUTING_DECISIONS)
        .description("Routing decisions by router mode and outcome")
        .tag(MetricNames.TAG_ROUTER_MODE, policy.mode().configName())
        .tag(MetricNames.TAG_OUTCOME, outcome)
        .register(meters);
  }

  /**
   * {@code request}'s prompt for the policy, hashed under the request's cache namespace when it has
   * one ({@link BlockHasher#of(int, String, String)}): a salted prompt matches only blocks stored
   * under the same salt, and an unsalted one never matches salted blocks. Every policy sees the
   * prompt only through this, so overlap scores, approximate-mode predictions, bookings and {@code
   * explain} all hash alike.
   */
  private Prompt promptOf(PreprocessedRequest request) {
    BlockHasher salted =
        request
            .cacheSalt()
            .map(salt -> BlockHasher.of(hasher.blockSize(), null, salt))
            .orElse(hasher);
    return Prompt.ofTokens(request.tokenIds(), salted);
  }

  @Override
  public Future<ResponseStream> generate(String requestId, PreprocessedRequest request) {
    Routing routing = new Routing(requestId, request, promptOf(request));
    Set<String> tried = new HashSet<>();
    return dispatch(routing, tried, null)
        .map(
            attempt ->
                new FailoverStream(
                    this,
                    routing,
                    tried,
                    attempt,
                    new Continuation(request, migration.limitFor(request))));
  }

  /**
   * {@code routing}'s request continued as {@code request} (a migration): the policy chooses and
   * books for the longer prompt, which the next worker has to prefill.
   */
  Routing continued(Routing routing, PreprocessedRequest request) {
    return new Routing(routing.requestId(), request, promptOf(request));
  }

  /**
   * Counts a migration: request {@code requestId} leaves {@code from} after {@code generated}
   * tokens. The counter's series appears with the first migration.
   */
  void migrated(String requestId, WorkerState from, int generated) {
    LOG.debug(
        "request {} continues on another worker: worker {} broke off after {} tokens",
        requestId,
        from.workerId(),
        generated);
    Counter.builder(MetricNames.MODEL_MIGRATION)
        .description("Requests moved to another worker after their stream broke off")
        .tag(MetricNames.TAG_MODEL, migration.model())
        .tag(MetricNames.TAG_MIGRATION_TYPE, MetricNames.MIGRATION_ONGOING_REQUEST)
        .register(meters)
        .increment();
  }

  /** A request being routed: its id, what the worker receives, and its prompt for the policy. */
  record Routing(String requestId, PreprocessedRequest request, Prompt prompt) {}

  /**
   * A worker chosen for one request, and the booking to keep until the request ends there; {@code
   * dpRank} is the data-parallel rank chosen too, empty when the worker chooses.
   */
  record Route(WorkerState worker, RoutingPolicy.Booking booking, OptionalInt dpRank) {
    /** {@code request} as the worker must receive it: for the chosen rank, if one was chosen. */
    PreprocessedRequest requestFor(PreprocessedRequest request) {
      return dpRank.isPresent() ? request.withDpRank(dpRank.getAsInt()) : request;
    }
  }

  /** One accepted send: the route taken and the worker's response stream. */
  record Attempt(Route route, ResponseStream stream) {
    WorkerState worker() {
      return route.worker();
    }
  }

  /** Sends to the next healthy worker not in {@code tried}, moving on when one fails. */
  Future<Attempt> dispatch(Routing routing, Set<String> tried, Throwable lastFailure) {
    List<WorkerState> workers = this.workers;
    List<WorkerState> candidates = new ArrayList<>(workers.size());
    for (WorkerState worker : workers) {
      if (worker.health.healthy() && !tried.contains(worker.workerId())) {
        candidates.add(worker);
      }
    }
    if (candidates.isEmpty()) {
      if (lastFailure instanceof WorkerUnavailableException refusal
          && refusal.neverFits()
          && tried.size() == workers.size()) {
        return Future.failedFuture(
            new InvalidRequestException(
                "This request does not fit in any worker's KV cache ("
                    + refusal.reason()
                    + "). Shorten the prompt or lower 'max_tokens'.",
                null));
      }
      String message =
          lastFailure == null
              ? "No healthy worker is available"
              : "No worker could take the request; last failure: " + lastFailure.getMessage();
      return Future.failedFuture(new NoWorkerAvailableException(message));
    }
    Route route;
    try {
      RoutingPolicy.Choice<WorkerState> choice = policy.choose(routing.prompt(), candidates);
      route =
          new Route(
              choice.worker(),
              policy.book(routing.requestId(), routing.prompt(), choice),
              choice.dpRank());
    } catch (AllWorkersBusyException e) {
      busyDecisions.increment();
      return Future.failedFuture(e);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    WorkerState worker = route.worker();
    if (worker.retired()) {
      // it left the set while this request was being routed: route again among those left
      route.booking().release();
      return dispatch(routing, tried, lastFailure);
    }
    routedDecisions.increment();
    tried.add(worker.workerId());
    worker.activeRequests.incrementAndGet();
    return plane
        .send(worker.endpoint, routing.requestId(), route.requestFor(routing.request()))
        .transform(
            ar -> {
              if (ar.succeeded()) {
                return Future.succeededFuture(
                    new Attempt(route, stalledStreams.watch(ar.result(), worker.workerId())));
              }
              released(route);
              if (ar.cause() instanceof WorkerUnavailableException unavailable) {
                if (unavailable.workerFault()) {
                  workerFault(worker, unavailable);
                }
                return dispatch(routing, tried, decisive(lastFailure, unavailable));
              }
              return Future.failedFuture(ar.cause());
            });
  }

  /**
   * The failure that speaks for the request if no worker takes it: a refusal because the request
   * can never fit gives way to any earlier failure, which may pass, so that the request is refused
   * as too large only when every worker said so.
   */
  private static Throwable decisive(Throwable earlier, WorkerUnavailableException latest) {
    boolean earlierNeverFits =
        earlier instanceof WorkerUnavailableException refusal && refusal.neverFits();
    return earlier != null && latest.neverFits() && !earlierNeverFits ? earlier : latest;
  }

  /** Called once when the request sent on {@code route} has ended there, however it ended. */
  void released(Route route) {
    route.worker().activeRequests.decrementAndGet();
    route.booking().release();
  }

  /** The request sent on {@code route} completed there: the worker's past failures are forgiven. */
  void completed(Route route) {
    route.worker().health.requestCompleted();
  }

  /**
   * {@code worker} failed: out of rotation until probes find it back, its cache presumed lost. A
   * worker that has left the set is neither probed nor reported to the policy: a worker of the same
   * id may have joined since.
   */
  void workerFault(WorkerState worker, Throwable cause) {
    if (worker.retired()) {
      return;
    }
    prober.markUnhealthy(worker, cause);
    policy.workerLost(worker.workerId());
  }

  @Override
  public Optional<RouteExplanation> explain(PreprocessedRequest request) {
    List<WorkerState> healthy = workers.stream().filter(w -> w.health.healthy()).toList();
    return policy.explain(promptOf(request), healthy);
  }

  /** Hands the policy the events of workers in the set; drops those of any other worker. */
  @Override
  public Optional<KvEventSink> kvEventSink() {
    if (!policy.followsKvEvents()) {
      return Optional.empty();
    }
    return Optional.of(
        (rank, event) ->
            byId.computeIfPresent(
                rank.workerId(),
                (id, worker) -> {
                  policy.kvEvent(rank, event);
                  return worker;
                }));
  }

  @Override
  public void addWorker(RouteTarget target) {
    WorkerState worker = join(target);
    if (started) {
      prober.onContext(() -> probeOnce(worker));
    }
  }

  private synchronized WorkerState join(RouteTarget target) {
    return join(new WorkerState(target, Ticker.SYSTEM));
  }

  private synchronized WorkerState join(WorkerState worker) {
    if (byId.containsKey(worker.workerId())) {
      throw new IllegalArgumentException(
          "worker " + worker.workerId() + " is already one of the router's workers");
    }
    policy.workerJoined(worker);
    byId.put(worker.workerId(), worker);
    List<WorkerState> joined = new ArrayList<>(workers);
    joined.add(worker);
    workers = List.copyOf(joined);
    return worker;
  }

  @Override
  public synchronized boolean removeWorker(String workerId) {
    WorkerState worker = byId.remove(workerId);
    if (worker == null) {
      return false;
    }
    worker.retire();
    workers = workers.stream().filter(w -> w != worker).toList();
    policy.workerLeft(worker);
    LOG.info(
        "worker {} left the router; {} request(s) still running there may finish",
        workerId,
        worker.activeRequests.get());
    return true;
  }

  @Override
  public Optional<CompletionStage<List<RouterEvent>>> dumpKvIndex() {
    return policy.dumpKvIndex();
  }

  @Override
  public void reportKvEventFeed(WorkerRank rank, Supplier<KvEventFeed> feed) {
    WorkerState worker = byId.get(rank.workerId());
    if (worker == null) {
      throw new IllegalArgumentException("no worker " + rank.workerId());
    }
    worker.reportKvEventFeed(rank.dpRank(), feed);
  }

  @Override
  public void reportLoad(WorkerLoadReport report) {
    WorkerState worker = byId.get(report.rank().workerId());
    if (worker != null && report.rank().dpRank() < worker.ranks().size()) {
      worker.reportLoad(report);
    }
  }

  @Override
  public OptionalLong largestKvCapacityTokens() {
    long largest = 0;
    for (WorkerState worker : workers) {
      for (WorkerRank rank : worker.ranks()) {
        long blocks = worker.totalKvBlocks(rank.dpRank());
        if (blocks <= 0) {
          return OptionalLong.empty();
        }
        largest = Math.max(largest, blocks);
      }
    }
    return largest == 0 ? OptionalLong.empty() : OptionalLong.of(largest * hasher.blockSize());
  }

  @Override
  public List<WorkerStatus> workers() {
    return workers.stream().map(w -> w.status(policy.kvView(w))).toList();
  }

  @Override
  public Future<Void> start() {
    started = true;
    List<Future<Void>> probes = new ArrayList<>();
    for (WorkerState worker : workers) {
      probes.add(probeOnce(worker));
    }
    return Future.join(probes).mapEmpty();
  }

  /** Probes {@code worker} once; one that fails is out of rotation until a later probe answers. */
  private Future<Void> probeOnce(WorkerState worker) {
    return plane
        .probe(worker.endpoint)
        .recover(
            failure -> {
              workerFault(worker, failure);
              return Future.succeededFuture();
            });
  }

  @Override
  public void close() {
    prober.close();
    stalledStreams.close();
    policy.close();
  }
}
