package io.kvrouter.routing;

import io.kvrouter.config.RouterMode;
import io.kvrouter.protocol.AllWorkersBusyException;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.RouteExplanation;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerCost;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.WorkerStatus;
import io.kvrouter.routing.index.ApproximateIndex;
import io.kvrouter.routing.index.KvIndexer;
import io.kvrouter.routing.schedule.ActiveSequences;
import io.kvrouter.routing.schedule.Candidate;
import io.kvrouter.routing.schedule.KvSelector;
import io.kvrouter.routing.schedule.Selection;
import io.kvrouter.routing.schedule.WorkerLoad;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletionStage;

/**
 * {@code kv} and {@code approx}: sends each request to the worker rank whose cost is lowest,
 * weighing the prompt blocks it already caches against the load it carries (see {@link KvSelector}
 * for the formulas, {@code --router-kv-cost} for the choice between them). Every data-parallel rank
 * is a candidate of its own, since each has its own KV cache. For each request:
 *
 * <ol>
 *   <li>the index gives each rank's overlap with the prompt's block hashes, the {@link
 *       ActiveSequences} its load;
 *   <li>the cheapest rank not over a busy threshold is chosen, and the request is booked on it: its
 *       blocks and prompt tokens count as that rank's load until its first output (prefill done)
 *       and its end;
 *   <li>{@code kv} follows the workers' own KV cache events ({@link #kvEvent}); {@code approx}, and
 *       {@code kv} with {@code --no-kv-events}, learn that the chosen rank now holds the prompt's
 *       blocks ({@link ApproximateIndex}) and forget them after {@code --router-ttl-secs}.
 * </ol>
 *
 * <p>Threads: never blocks. The index is read lock-free, the books take a rank's lock for a count's
 * update, and the approximate index a short lock per decision (see their Javadoc).
 */
final class KvPolicy implements RoutingPolicy {

  /** Told of every booked choice, and of workers joining and leaving: the live router's meters. */
  @FunctionalInterface
  interface Decisions {
    Decisions NONE = (cost, inputTokens) -> {};

    void chosen(WorkerCost cost, int inputTokens);

    /** {@code ranks} of a worker that joined. */
    default void joined(List<WorkerRank> ranks) {}

    /** {@code ranks} of a worker that left. */
    default void left(List<WorkerRank> ranks) {}
  }

  private final RouterMode mode;
  private final KvScheduling scheduling;
  private final int blockSize;
  private final KvUpkeep upkeep;
  private final Decisions decisions;

  private KvPolicy(
      RouterMode mode,
      KvScheduling scheduling,
      int blockSize,
      KvUpkeep upkeep,
      Decisions decisions) {
    this.mode = mode;
    this.scheduling = scheduling;
    this.blockSize = blockSize;
    this.upkeep = upkeep;
    this.decisions = decisions;
  }

  /**
   * The simulator's: the index applied on the caller's thread, learned blocks expired before each
   * choice, no meters.
   *
   * @param approximate learn from decisions instead of following KV events
   */
  static KvPolicy inline(RouterMode mode, PolicySettings settings, boolean approximate) {
    KvScheduling scheduling = KvScheduling.of(settings, KvIndexer.inline(), approximate, null);
    return new KvPolicy(
        mode,
        scheduling,
        settings.blockSize(),
        KvUpkeep.beforeEachChoice(scheduling),
        Decisions.NONE);
  }

  /**
   * The live router's: a sharded index with its writer threads, its upkeep on {@code vertx}'s
   * timers, and its meters (with gauges for every rank of the workers that join) in {@code meters}.
   *
   * @param approximate learn from decisions instead of following KV events
   * @param sync shares the books with the other routers of a fleet; null keeps them local
   */
  static KvPolicy start(
      RouterMode mode,
      PolicySettings settings,
      boolean approximate,
      ReplicaSync sync,
      Vertx vertx,
      MeterRegistry meters) {
    KvScheduling scheduling =
        KvScheduling.of(
            settings, KvIndexer.create(KvIndexer.DEFAULT_SHARDS, meters), approximate, sync);
    return new KvPolicy(
        mode,
        scheduling,
        settings.blockSize(),
        TimedKvUpkeep.start(scheduling, vertx),
        new KvMeters(meters, settings.blockSize(), scheduling.active));
  }

  @Override
  public RouterMode mode() {
    return mode;
  }

  @Override
  public <W extends RouteCandidate> Choice<W> choose(Prompt prompt, List<W> candidates) {
    upkeep.beforeChoice();
    WorkerCost cost =
        scheduling
            .score(prompt, ranksOf(candidates))
            .chosenCost()
            .orElseThrow(
                () ->
                    new AllWorkersBusyException(
                        "All " + candidates.size() + " available workers are busy; retry later"));
    WorkerRank rank = cost.worker();
    W worker =
        candidates.stream()
            .filter(w -> w.workerId().equals(rank.workerId()))
            .findFirst()
            .orElseThrow();
    OptionalInt dpRank =
        worker.ranks().size() > 1 ? OptionalInt.of(rank.dpRank()) : OptionalInt.empty();
    return new Choice<>(worker, dpRank, Optional.of(cost));
  }

  /** Every data-parallel rank of {@code workers}, with its capacity and reported use. */
  private static List<Candidate> ranksOf(List<? extends RouteCandidate> workers) {
    List<Candidate> ranks = new ArrayList<>(workers.size());
    for (RouteCandidate worker : workers) {
      for (WorkerRank rank : worker.ranks()) {
        int dp = rank.dpRank();
        ranks.add(new Candidate(rank, worker.totalKvBlocks(dp), worker.reportedActiveBlocks(dp)));
      }
    }
    return ranks;
  }

  @Override
  public Booking book(String requestId, Prompt prompt, Choice<?> choice) {
    WorkerCost cost =
        choice
            .cost()
            .orElseThrow(() -> new IllegalArgumentException("not a KV policy's choice: " + choice));
    scheduling.book(requestId, cost, prompt);
    decisions.chosen(cost, prompt.inputTokens());
    return new ActiveBooking(requestId);
  }

  /** Keeps the request's load on its rank from routing to first output (prefill) and end. */
  private final class ActiveBooking implements Booking {
    private final String requestId;

    ActiveBooking(String requestId) {
      this.requestId = requestId;
    }

    @Override
    public void firstOutput() {
      scheduling.active.markPrefillDone(requestId);
    }

    @Override
    public void release() {
      scheduling.active.free(requestId);
    }
  }

  @Override
  public Optional<RouteExplanation> explain(
      Prompt prompt, List<? extends RouteCandidate> candidates) {
    Selection selection = scheduling.score(prompt, ranksOf(candidates));
    return Optional.of(
        new RouteExplanation(
            selection.inputTokens(),
            blockSize,
            selection.requestBlocks(),
            selection.chosen(),
            selection.workers()));
  }

  @Override
  public Optional<WorkerStatus.KvView> kvView(RouteCandidate worker) {
    // summed over the worker's data-parallel ranks
    long activeBlocks = 0;
    long prefillTokens = 0;
    long cachedBlocks = 0;
    long totalBlocks = 0;
    Map<WorkerRank, Long> cached = scheduling.indexer.cachedBlocks();
    for (WorkerRank rank : worker.ranks()) {
      WorkerLoad load = scheduling.active.load(rank);
      activeBlocks += load.activeBlocks();
      prefillTokens += load.activePrefillTokens();
      cachedBlocks += cached.getOrDefault(rank, 0L);
      totalBlocks += worker.totalKvBlocks(rank.dpRank());
    }
    return Optional.of(
        new WorkerStatus.KvView(activeBlocks, prefillTokens, cachedBlocks, totalBlocks));
  }

  @Override
  public boolean followsKvEvents() {
    return scheduling.learned == null;
  }

  @Override
  public void kvEvent(WorkerRank rank, KvCacheEvent event) {
    if (followsKvEvents()) {
      scheduling.indexer.apply(rank, event);
    }
  }

  @Override
  public Optional<CompletionStage<List<RouterEvent>>> dumpKvIndex() {
    return Optional.of(scheduling.indexer.dump());
  }

  @Override
  public void workerJoined(RouteCandidate worker) {
    decisions.joined(worker.ranks());
  }

  /**
   * Every rank of the worker leaves the index (queued behind the events given before, so none of
   * them brings it back), the books and the meters; the learned index forgets it too.
   */
  @Override
  public void workerLeft(RouteCandidate worker) {
    String workerId = worker.workerId();
    if (scheduling.learned != null) {
      scheduling.learned.forgetWorker(workerId);
    }
    scheduling.indexer.removeWorker(workerId);
    scheduling.active.removeWorker(workerId);
    decisions.left(worker.ranks());
  }

  /**
   * In approximate mode the worker's learned blocks are forgotten. With KV events the index keeps
   * following the worker's event stream, which says itself when the worker restarted; removing the
   * blocks here would make the index disagree with that stream.
   */
  @Override
  public void workerLost(String workerId) {
    if (scheduling.learned != null) {
      scheduling.learned.forgetWorker(workerId);
      scheduling.indexer.removeWorker(workerId);
    }
  }

  /** Requests booked and not yet released: for tests. */
  int requestsInFlight() {
    return scheduling.active.activeRequests();
  }

  @Override
  public void close() {
    upkeep.close();
    scheduling.indexer.close();
  }
}
