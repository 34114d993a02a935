package io.kvrouter.app;

import io.kvrouter.events.nats.NatsEventPublisher;
import io.kvrouter.events.nats.NatsSubjects;
import io.kvrouter.protocol.WorkerLoadReport;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoEventCodec;
import io.kvrouter.protocol.dynamo.WorkerKvQueryCodec;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult;
import io.kvrouter.protocol.dynamo.WorkerLoadCodec;
import io.kvrouter.sim.SimulatedEngine;
import io.kvrouter.sim.kv.KvCacheManager;
import io.kvrouter.sim.kv.WorkerKvEventLog;
import java.time.Duration;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A simulated worker rank on Dynamo's NATS event plane, as a Dynamo worker with its local indexer:
 *
 * <ul>
 *   <li>every KV event of the engine's cache, numbered by a {@link WorkerKvEventLog}, goes out as
 *       a JSON {@code RouterEvent} on {@code namespace.{ns}.component.{comp}.kv_events} (also kept
 *       in the JetStream stream when {@code durable});
 *   <li>the router's recovery queries on {@code ...worker_kv_indexer_query.{worker_id}} are
 *       answered from the log (events, tree dump, too new);
 *   <li>its load goes out on {@code namespace.{ns}.kv_metrics} every {@code loadInterval} while it
 *       changes, and at least once a second.
 * </ul>
 */
final class DynamoWorkerEvents implements AutoCloseable {
  /** Where and how a worker publishes. */
  record Settings(
      String natsUrl, String namespace, String component, boolean durable, Duration loadInterval) {
    Settings {
      Objects.requireNonNull(natsUrl, "natsUrl");
      Objects.requireNonNull(namespace, "namespace");
      Objects.requireNonNull(component, "component");
      Objects.requireNonNull(loadInterval, "loadInterval");
    }
  }

  private static final long LOAD_HEARTBEAT_MS = 1000;

  private final NatsEventPublisher publisher;
  private final WorkerKvEventLog log;
  private final ScheduledExecutorService loadTimer;
  private WorkerLoadReport lastLoad;
  private long lastLoadMillis;

  private DynamoWorkerEvents(
      NatsEventPublisher publisher, WorkerKvEventLog log, ScheduledExecutorService loadTimer) {
    this.publisher = publisher;
    this.log = log;
    this.loadTimer = loadTimer;
  }

  /**
   * Starts publishing {@code engine}'s events and load as worker {@code rank} (whose id must be a
   * decimal u64, as Dynamo's worker ids are), losing {@code dropRate} of the events on purpose.
   */
  static DynamoWorkerEvents start(
      SimulatedEngine engine, WorkerRank rank, Settings settings, double dropRate) {
    long workerId = DynamoEventCodec.workerIdToU64(rank.workerId());
    String component = NatsSubjects.component(settings.namespace(), settings.component());
    String kvEvents = NatsSubjects.kvEvents(settings.namespace(), settings.component());
    NatsEventPublisher publisher =
        NatsEventPublisher.start(
            settings.natsUrl(), "worker-" + rank.workerId(),
            NatsEventPublisher.DEFAULT_RECONNECT_BUFFER_BYTES);
    if (settings.durable()) {
      publisher.storeInStream(kvEvents);
    }
    WorkerKvEventLog log = WorkerKvEventLog.attach(engine.kvCache(), rank);
    SplittableRandom random = new SplittableRandom(System.nanoTime());
    log.subscribe(
        event -> {
          // lost on purpose (--kv-events-drop-rate): the router must recover it by query
          if (dropRate == 0 || random.nextDouble() >= dropRate) {
            publisher.publish(kvEvents, DynamoEventCodec.encode(event));
          }
        });
    publisher.serve(
        WorkerKvQueryCodec.subject(component, workerId), request -> answer(log, rank, request));
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "worker-load-" + rank.workerId());
              t.setDaemon(true);
              return t;
            });
    DynamoWorkerEvents events = new DynamoWorkerEvents(publisher, log, timer);
    String loadSubject = WorkerLoadCodec.subject(settings.namespace());
    long period = settings.loadInterval().toMillis();
    timer.scheduleWithFixedDelay(
        () -> events.publishLoad(engine, rank, loadSubject), 0, period, TimeUnit.MILLISECONDS);
    return events;
  }

  /** The worker's side of a recovery query; a malformed one is answered with an {@code Error}. */
  static byte[] answer(WorkerKvEventLog log, WorkerRank rank, byte[] request) {
    WorkerKvQueryResult result;
    try {
      WorkerKvQueryCodec.Query query = WorkerKvQueryCodec.decodeQuery(request);
      if (query.dpRank() != rank.dpRank()) {
        result = new WorkerKvQueryResult.Error(
            "worker " + rank.workerId() + " serves dp_rank " + rank.dpRank() + ", not "
                + query.dpRank());
      } else {
        result = log.query(query.start(), query.end());
      }
    } catch (IllegalArgumentException e) {
      result = new WorkerKvQueryResult.Error("malformed query: " + e.getMessage());
    }
    return WorkerKvQueryCodec.encodeResult(result);
  }

  private void publishLoad(SimulatedEngine engine, WorkerRank rank, String subject) {
    KvCacheManager kv = engine.kvCache();
    long active = kv.activeBlocks();
    WorkerLoadReport load =
        new WorkerLoadReport(
            rank, active, WorkerLoadReport.UNKNOWN, active, kv.capacity(), 0,
            engine.activeRequests());
    long now = System.currentTimeMillis();
    if (load.equals(lastLoad) && now - lastLoadMillis < LOAD_HEARTBEAT_MS) {
      return;
    }
    if (publisher.publish(subject, WorkerLoadCodec.encode(load))) {
      lastLoad = load;
      lastLoadMillis = now;
    }
  }

  NatsEventPublisher publisher() {
    return publisher;
  }

  @Override
  public void close() {
    loadTimer.shutdownNow();
    log.close();
    publisher.close();
  }
}
