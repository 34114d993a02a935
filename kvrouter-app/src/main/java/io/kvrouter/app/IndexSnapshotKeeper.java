package io.kvrouter.app;

import io.kvrouter.common.DaemonThreads;
import io.kvrouter.common.FaultLog;
import io.kvrouter.config.EventPlaneConfig;
import io.kvrouter.config.EventPlaneKind;
import io.kvrouter.config.IndexSnapshotConfig;
import io.kvrouter.events.DynamoEventFollower;
import io.kvrouter.events.IndexSnapshotStore;
import io.kvrouter.events.kafka.KafkaSnapshotStore;
import io.kvrouter.events.nats.NatsSnapshotStore;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.snapshot.IndexSnapshot;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --router-index-snapshots} for one model's index ({@code docs/notes/index-snapshots.md}):
 * at start it loads the fleet's snapshot (or deletes it, with {@code --router-reset-states}); then,
 * on a thread of its own, every {@link #CHECK} it takes or renews the lock on writing the snapshot
 * and, while it holds it, writes a new one whenever the index has taken {@code
 * --router-snapshot-threshold} events since the last. The snapshot is kept where the event plane
 * keeps things: the NATS JetStream object store, or a compacted Kafka topic.
 *
 * <p>A store that cannot be reached is not fatal: the router starts as it would without snapshots,
 * and the keeper connects again at each check (said at WARN once a minute).
 */
final class IndexSnapshotKeeper implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(IndexSnapshotKeeper.class);

  /** How often the lock is renewed and the threshold checked. */
  static final Duration CHECK = Duration.ofSeconds(5);

  /** How long a writer's lock lasts without renewal: a few checks, so one slow write is fine. */
  static final Duration LOCK_TTL = Duration.ofSeconds(30);

  /** How long workers a snapshot names have to join before their blocks are dropped. */
  static final Duration RESTORE_GRACE = Duration.ofSeconds(60);

  /** The longest a snapshot may take to be read from the follower and the index. */
  private static final Duration TAKE_WAIT = Duration.ofMinutes(2);

  /** Connects to the store; may block and fail. */
  interface Connector {
    IndexSnapshotStore connect() throws Exception;
  }

  private final IndexSnapshotConfig config;
  private final String name;
  private final String owner;
  private final Connector connector;
  private final ScheduledExecutorService thread;
  private final FaultLog faults = FaultLog.of(log, "index snapshot store failures");
  private final Counter restored;
  private final Counter written;
  private final Counter failed;

  /** Null until connected; then read and written on {@link #thread} (or by the start, before). */
  private IndexSnapshotStore store;

  /** The follower's applied events when the last snapshot was taken; on the thread. */
  private long appliedAtLast;

  IndexSnapshotKeeper(
      IndexSnapshotConfig config, String name, Connector connector, MeterRegistry meters) {
    this.config = config;
    this.name = name;
    this.connector = connector;
    byte[] id = new byte[8];
    new SecureRandom().nextBytes(id);
    this.owner = "router-" + HexFormat.of().formatHex(id);
    this.thread =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("index-snapshots"));
    this.restored = outcome(meters, "restored");
    this.written = outcome(meters, "written");
    this.failed = outcome(meters, "failed");
  }

  /** The keeper of model {@code model}'s snapshot on the plane {@code events} keeps things on. */
  static IndexSnapshotKeeper of(
      IndexSnapshotConfig config, EventPlaneConfig events, String model, MeterRegistry meters) {
    Connector connector =
        events.kind() == EventPlaneKind.KAFKA
            ? () -> KafkaSnapshotStore.connect(events.kafka(), LOCK_TTL)
            : () -> NatsSnapshotStore.connect(events.natsServer(), LOCK_TTL);
    return new IndexSnapshotKeeper(config, name(events, model), connector, meters);
  }

  /**
   * The snapshot's name: the endpoint whose workers' events it covers and the model (several models
   * may share an endpoint), in the characters a NATS key takes.
   */
  static String name(EventPlaneConfig events, String model) {
    String raw = events.namespace() + "." + events.component() + "." + events.endpoint();
    return raw.replaceAll("[^-_=.a-zA-Z0-9]", "_")
        + "/"
        + model.replaceAll("[^-_=.a-zA-Z0-9/]", "_");
  }

  private static Counter outcome(MeterRegistry meters, String outcome) {
    return Counter.builder(MetricNames.INDEX_SNAPSHOTS)
        .description("Snapshots of the KV index restored, written, or failed to load or write")
        .tag(MetricNames.TAG_OUTCOME, outcome)
        .register(meters);
  }

  /**
   * What the router starts from: the fleet's snapshot, or nothing when there is none, when {@code
   * --router-reset-states} deletes it, or when the store fails (logged). Blocks.
   */
  Optional<IndexSnapshot> load() {
    long start = System.nanoTime();
    try {
      store = connector.connect();
      if (config.reset()) {
        store.delete(name);
        log.info("--router-reset-states: deleted the index snapshot {}", name);
        return Optional.empty();
      }
      Optional<IndexSnapshot> snapshot = store.load(name);
      snapshot.ifPresentOrElse(
          s -> {
            restored.increment();
            log.info(
                "Loaded the index snapshot {} taken at {}: {} blocks of {} ranks in {} ms",
                name,
                Instant.ofEpochMilli(s.createdAtMillis()),
                s.blocks(),
                s.lastEventIds().size(),
                (System.nanoTime() - start) / 1_000_000);
          },
          () -> log.info("No index snapshot {} yet: the workers are asked for their state", name));
      return snapshot;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    } catch (Exception e) {
      failed.increment();
      log.warn(
          "The index snapshot {} could not be {}: the workers are asked for their state ({})",
          name,
          config.reset() ? "deleted" : "loaded",
          e.toString());
      return Optional.empty();
    }
  }

  /**
   * Starts writing snapshots of what {@code follower} has handed to the index {@code dump} reads,
   * while this router holds the lock.
   */
  void startWriting(
      DynamoEventFollower follower, Supplier<CompletionStage<List<RouterEvent>>> dump) {
    thread.scheduleWithFixedDelay(
        () -> check(follower, dump), CHECK.toMillis(), CHECK.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** One round of the writer: renew the lock, and write while holding it past the threshold. */
  void check(DynamoEventFollower follower, Supplier<CompletionStage<List<RouterEvent>>> dump) {
    try {
      if (store == null) {
        store = connector.connect();
      }
      if (!store.lock(name, owner)) {
        return;
      }
      long applied = follower.appliedEvents();
      if (applied - appliedAtLast < config.threshold()) {
        return;
      }
      long start = System.nanoTime();
      IndexSnapshot snapshot =
          IndexSnapshots.take(follower, dump)
              .toCompletableFuture()
              .get(TAKE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      long bytes = store.save(name, snapshot);
      appliedAtLast = applied;
      written.increment();
      log.info(
          "Wrote the index snapshot {}: {} blocks of {} ranks, {} bytes in {} ms",
          name,
          snapshot.blocks(),
          snapshot.lastEventIds().size(),
          bytes,
          (System.nanoTime() - start) / 1_000_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      if (Thread.currentThread().isInterrupted()) {
        return; // closing: a client that saw the interrupt (Kafka's) says so in its own way
      }
      failed.increment();
      faults.fault(name + ": " + e);
    }
  }

  /** Stops writing (a write under way is interrupted) and disconnects. Blocks a few seconds. */
  @Override
  public void close() {
    thread.shutdownNow();
    try {
      thread.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (store != null) {
      store.close();
    }
  }
}
