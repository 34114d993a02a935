package io.kvrouter.events;

import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoEventCodec;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.dynamo.WorkerKvQueryCodec;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult;
import io.kvrouter.testing.DynamoWorkload;
import io.kvrouter.worker.kv.BlockPool;
import io.kvrouter.worker.kv.WorkerKvEventLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One simulated Dynamo worker rank for the follower's tests: a real worker cache under a random
 * workload and its {@link WorkerKvEventLog}, whose events go out on a wire that may lose, repeat or
 * delay them, and whose answers to recovery questions go through the query codec as they would over
 * the request plane.
 */
final class SimulatedDynamoWorker implements AutoCloseable {
  static final WorkerRank RANK = new WorkerRank("7", 0);

  final BlockPool kv = new BlockPool(48, 4);
  private final WorkerKvEventLog log;
  private final DynamoWorkload workload;
  private final Consumer<DynamoRouterEvent> wire;

  /** Events whose id this accepts are lost on the wire. */
  volatile Predicate<Long> lose = id -> false;

  /** Events whose id this accepts arrive twice. */
  volatile Predicate<Long> repeat = id -> false;

  /** While true, events wait in {@link #lagging} (a slow delivery queue). */
  private boolean lag;

  private final List<DynamoRouterEvent> lagging = new ArrayList<>();

  /**
   * A worker of {@link #RANK}, keeping the last {@code buffer} events, publishing to {@code wire}.
   */
  SimulatedDynamoWorker(long seed, int buffer, Consumer<DynamoRouterEvent> wire) {
    this(RANK, seed, buffer, wire);
  }

  SimulatedDynamoWorker(WorkerRank rank, long seed, int buffer, Consumer<DynamoRouterEvent> wire) {
    this.wire = wire;
    log = WorkerKvEventLog.attach(kv, rank, buffer);
    workload = new DynamoWorkload(kv, seed);
    log.subscribe(
        event -> {
          if (lose.test(event.eventId())) {
            return;
          }
          synchronized (lagging) {
            if (lag) {
              lagging.add(event);
              return;
            }
          }
          wire.accept(event);
          if (repeat.test(event.eventId())) {
            wire.accept(event);
          }
        });
  }

  /** {@code n} random cache operations (some publish no event). */
  void steps(int n) {
    for (int i = 0; i < n; i++) {
      workload.step();
    }
  }

  /** Steps until {@code n} more events were published. */
  void events(int n) {
    long target = log.newestEventId() + n;
    while (log.newestEventId() < target) {
      workload.step();
    }
  }

  /** The id of the last event published; -1 before the first. */
  long newestEventId() {
    return log.newestEventId();
  }

  /** From now on events wait on the wire until {@link #catchUp}. */
  void lag() {
    synchronized (lagging) {
      lag = true;
    }
  }

  /** Delivers the events that waited, in order, and stops lagging. */
  void catchUp() {
    synchronized (lagging) {
      lag = false;
      lagging.forEach(wire);
      lagging.clear();
    }
  }

  /** The worker's answer to "events {@code start..end}" as the router would read it. */
  WorkerKvQueryResult answer(WorkerRank rank, Long start, Long end) {
    byte[] question =
        WorkerKvQueryCodec.encodeQuery(
            new WorkerKvQueryCodec.Query(
                DynamoEventCodec.workerIdToU64(rank.workerId()), rank.dpRank(), start, end));
    WorkerKvQueryCodec.Query asked = WorkerKvQueryCodec.decodeQuery(question);
    WorkerKvQueryResult result = log.query(asked.start(), asked.end());
    return WorkerKvQueryCodec.decodeResult(WorkerKvQueryCodec.encodeResult(result));
  }

  /** (engine hash, tokens hash) of every block the worker's cache holds. */
  Set<List<Long>> blocks() {
    return DynamoWorkload.blocksOf(kv.snapshot());
  }

  /** The process ends: its log publishes nothing more. */
  @Override
  public void close() {
    log.close();
  }
}
