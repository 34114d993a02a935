package io.kvrouter.app;

import io.kvrouter.common.DaemonThreads;
import io.kvrouter.protocol.WorkerLoadReport;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoEventCodec;
import io.kvrouter.protocol.dynamo.WorkerKvQueryCodec;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult;
import io.kvrouter.transport.JsonEndpoint;
import io.kvrouter.worker.SimulatedEngine;
import io.kvrouter.worker.kv.BlockPool;
import io.kvrouter.worker.kv.WorkerKvEventLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A simulated worker's data-parallel ranks on Dynamo's event plane (NATS or ZMQ, see {@link
 * DynamoEventSink}), as a Dynamo worker with its local indexer, one log per rank:
 *
 * <ul>
 *   <li>every KV event of the engine's cache, numbered by a {@link WorkerKvEventLog}, goes out as a
 *       {@code RouterEvent};
 *   <li>the router's recovery queries, asked over the request plane at each publisher's {@code
 *       worker_kv_query_source_{publisher_id:x}} endpoint (Dynamo v1.5) or each rank's {@code
 *       worker_kv_indexer_query_dp{rank}} (earlier releases; {@link #queryEndpoints()}), are
 *       answered from the log (events, tree dump, too new), one at a time as Dynamo's worker does;
 *   <li>its load goes out every {@code loadInterval} while it changes, and at least once a second.
 * </ul>
 */
final class DynamoWorkerEvents implements AutoCloseable {
  private static final long LOAD_HEARTBEAT_MS = 1000;

  private final DynamoEventSink sink;
  private final List<WorkerKvEventLog> logs;
  private final ScheduledExecutorService loadTimer;
  private final ExecutorService queries;
  private final WorkerLoadReport[] lastLoad;
  private final long[] lastLoadMillis;

  private DynamoWorkerEvents(
      DynamoEventSink sink,
      List<WorkerKvEventLog> logs,
      ScheduledExecutorService loadTimer,
      String workerId) {
    this.sink = sink;
    this.logs = logs;
    this.loadTimer = loadTimer;
    this.queries =
        Executors.newSingleThreadExecutor(DaemonThreads.named("worker-kv-query-" + workerId));
    this.lastLoad = new WorkerLoadReport[logs.size()];
    this.lastLoadMillis = new long[logs.size()];
  }

  /**
   * Starts publishing the events and load of {@code ranks} (rank {@code r} is data-parallel rank
   * {@code r}) as worker {@code workerId} (a decimal u64, as Dynamo's worker ids are) to {@code
   * sink}, which it then owns, the load every {@code loadInterval} while it changes; losing {@code
   * dropRate} of the events on purpose.
   */
  static DynamoWorkerEvents start(
      List<SimulatedEngine> ranks,
      String workerId,
      DynamoEventSink sink,
      Duration loadInterval,
      double dropRate) {
    List<WorkerKvEventLog> logs = new ArrayList<>(ranks.size());
    SplittableRandom random = new SplittableRandom(System.nanoTime());
    for (int dp = 0; dp < ranks.size(); dp++) {
      WorkerKvEventLog log =
          WorkerKvEventLog.attach(ranks.get(dp).kvCache(), new WorkerRank(workerId, dp));
      log.subscribe(
          event -> {
            // lost on purpose (--kv-events-drop-rate): the router must recover it by query
            synchronized (random) {
              if (dropRate > 0 && random.nextDouble() < dropRate) {
                return;
              }
            }
            sink.publishEvent(event);
          });
      logs.add(log);
    }
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("worker-load-" + workerId));
    DynamoWorkerEvents events = new DynamoWorkerEvents(sink, List.copyOf(logs), timer, workerId);
    long period = loadInterval.toMillis();
    timer.scheduleWithFixedDelay(
        () -> {
          for (int dp = 0; dp < ranks.size(); dp++) {
            events.publishLoad(ranks.get(dp), dp, new WorkerRank(workerId, dp));
          }
        },
        0,
        period,
        TimeUnit.MILLISECONDS);
    return events;
  }

  /**
   * The recovery-query endpoints, by request-plane path, for the worker's TCP server to serve, as
   * the Dynamo release whose event format the worker speaks serves them: each publisher's {@code
   * worker_kv_query_source_{publisher_id:x}} when the events go in envelopes (v1.5 and later),
   * otherwise each rank's {@code worker_kv_indexer_query_dp{rank}} (v1.4 JSON). A publisher that
   * carries several ranks (the ZMQ plane's one socket) answers for the rank the query names.
   */
  Map<String, JsonEndpoint> queryEndpoints() {
    Map<String, JsonEndpoint> endpoints = new LinkedHashMap<>();
    Map<String, List<Integer>> publishers = new LinkedHashMap<>();
    for (int dp = 0; dp < logs.size(); dp++) {
      int rank = dp;
      OptionalLong publisher = sink.publisherId(rank);
      if (publisher.isPresent()) {
        publishers
            .computeIfAbsent(
                WorkerKvQueryCodec.sourceEndpoint(publisher.getAsLong()), name -> new ArrayList<>())
            .add(rank);
      } else {
        endpoints.put(WorkerKvQueryCodec.endpoint(rank), question -> ask(rank, question));
      }
    }
    publishers.forEach(
        (name, ranks) ->
            endpoints.put(name, question -> ask(rankAsked(ranks, question), question)));
    return endpoints;
  }

  private CompletableFuture<byte[]> ask(int rank, byte[] question) {
    return CompletableFuture.supplyAsync(() -> answer(rank, question), queries);
  }

  /**
   * The rank among {@code ranks} that {@code question} names; the first when it names none of them
   * or cannot be read (whose answer then says so).
   */
  private static int rankAsked(List<Integer> ranks, byte[] question) {
    try {
      int asked = WorkerKvQueryCodec.decodeQuery(question, ranks.get(0)).dpRank();
      return ranks.contains(asked) ? asked : ranks.get(0);
    } catch (IllegalArgumentException e) {
      return ranks.get(0);
    }
  }

  /**
   * The answer to a recovery query at rank {@code rank}'s endpoint, from that rank's log (a query
   * without {@code dp_rank} is for the endpoint's rank); a malformed query, one naming another
   * worker or rank, or a log that fails is answered with an {@code Error}, never left unanswered.
   */
  byte[] answer(int rank, byte[] request) {
    WorkerKvQueryResult result;
    try {
      WorkerKvQueryCodec.Query query = WorkerKvQueryCodec.decodeQuery(request, rank);
      WorkerRank asked = logs.get(rank).rank();
      long workerId = DynamoEventCodec.workerIdToU64(asked.workerId());
      if (query.workerId() != workerId || query.dpRank() != rank) {
        result =
            new WorkerKvQueryResult.Error(
                "asked for worker "
                    + Long.toUnsignedString(query.workerId())
                    + " rank "
                    + query.dpRank()
                    + " at the endpoint of worker "
                    + asked.workerId()
                    + " rank "
                    + rank);
      } else {
        result = logs.get(rank).query(query.start(), query.end());
      }
    } catch (IllegalArgumentException e) {
      result = new WorkerKvQueryResult.Error("malformed query: " + e.getMessage());
    } catch (RuntimeException e) {
      result = new WorkerKvQueryResult.Error("cannot answer: " + e);
    }
    return WorkerKvQueryCodec.encodeResult(result);
  }

  private void publishLoad(SimulatedEngine engine, int dp, WorkerRank rank) {
    BlockPool kv = engine.kvCache();
    long active = kv.activeBlocks();
    WorkerLoadReport load =
        new WorkerLoadReport(
            rank,
            active,
            WorkerLoadReport.UNKNOWN,
            active,
            kv.capacity(),
            0,
            engine.activeRequests());
    long now = System.currentTimeMillis();
    if (load.equals(lastLoad[dp]) && now - lastLoadMillis[dp] < LOAD_HEARTBEAT_MS) {
      return;
    }
    if (sink.publishLoad(load)) {
      lastLoad[dp] = load;
      lastLoadMillis[dp] = now;
    }
  }

  /** Where the events go, for the worker's start-up line. */
  String describe() {
    return sink.describe();
  }

  @Override
  public void close() {
    loadTimer.shutdownNow();
    queries.shutdownNow();
    logs.forEach(WorkerKvEventLog::close);
    sink.close();
  }
}
