package io.kvrouter.events;

import io.kvrouter.common.DaemonThreads;
import io.kvrouter.common.FaultLog;
import io.kvrouter.common.Ticker;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvEventFeed;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoEventCodec;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.dynamo.EventEnvelope;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult;
import io.kvrouter.routing.index.KvEventSink;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the KV index true to each worker rank's stream of Dynamo {@code RouterEvent}s, whose ids
 * count 0, 1, 2, … per rank, by asking the worker itself whenever the stream cannot be trusted. The
 * rules (ordering, gaps, restarts, answers, retries, quiet probes) are each rank's {@link
 * DynamoEventSequencer}'s; this class is the shell around them: one thread of its own that owns
 * every rank's sequencer, the recovery questions sent through a {@link RecoveryClient}, the index's
 * {@link KvEventSink}, the rank's metrics, and the {@link Ticker} that gives the sequencers the
 * time.
 *
 * <p>{@link #onMessage}, {@link #onMsgpack} and {@link #onEnvelope} decode on the caller's thread
 * and hand the events over; answers are handed over from whichever thread completes them. A payload
 * that is not a {@code RouterEvent} (or, in msgpack, a list of them) is counted and dropped whole,
 * and logged through a {@link FaultLog} (at DEBUG, one WARN a minute at most). Every {@link #TICK}
 * the thread tells every rank the time, which is when retries fall due and quiet ranks are probed.
 *
 * <p>{@link #resyncAll()} re-asks every known rank for a tree dump: the caller's answer to a
 * subscription that may have lost messages (a core NATS reconnect). {@link #follow} asks for a
 * rank's dump before its first event, so a new router learns the state of quiet workers too.
 *
 * <p>{@link #forget} drops a worker that left: its ranks' sequencers and meters go, answers to
 * their questions are ignored, and its events (a shared NATS subject still carries those of a
 * worker that left discovery but runs on) are dropped until {@link #follow} names one of its ranks
 * again.
 */
public final class DynamoEventFollower implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DynamoEventFollower.class);

  /**
   * How often every rank is told the time: a quarter of the first retry delay, so that retries and
   * probes fall due within this of their deadline.
   */
  static final Duration TICK = Duration.ofMillis(50);

  /** Asks a worker rank for events {@code start..end} (a tree dump when {@code start} is null). */
  public interface RecoveryClient {
    /**
     * @param publisherId the id of the event publisher whose envelope last carried the rank's
     *     events (Dynamo v1.5 names the rank's recovery endpoint after it), or null when none was
     *     seen (no events yet, or a format without envelopes)
     */
    CompletableFuture<WorkerKvQueryResult> query(
        WorkerRank rank, Long publisherId, Long start, Long end);
  }

  private final KvEventSink sink;
  private final RecoveryClient client;
  private final DynamoEventSequencer.Settings settings;
  private final MeterRegistry registry;
  private final Ticker ticker;
  private final ScheduledExecutorService thread;
  private final Counter malformed;
  private final FaultLog faults;

  /** Added on {@link #thread} only; {@link #feed} reads it from any thread. */
  private final Map<WorkerRank, Rank> ranks = new ConcurrentHashMap<>();

  /** The workers {@link #forget} dropped and no {@link #follow} brought back; on the thread. */
  private final Set<String> departed = new HashSet<>();

  /** Events of departed workers, dropped. */
  private final Counter departedEvents;

  /** Whether a worker's events are this follower's (a discovered model's: its own workers'). */
  private final Predicate<String> member;

  /** Events of workers that are not {@link #member}s, dropped. */
  private final Counter otherEvents;

  /** Per event-log partition, the offset after the last record handed over; on the thread. */
  private final Map<String, Long> logOffsets = new HashMap<>();

  /** Events handed to the index. */
  private final LongAdder appliedEvents = new LongAdder();

  /** The questions asked of workers: for a tree dump, and for events after a position. */
  private final Counter dumpQuestions;

  private final Counter eventQuestions;

  /**
   * @param atLeastOnce true when the subscription may deliver an event twice (a JetStream durable
   *     consumer), false when it delivers at most once (core NATS)
   * @param probeInterval how long a rank may stay quiet before it is asked whether it lost its last
   *     events
   * @param ticker where the time is read
   */
  public DynamoEventFollower(
      KvEventSink sink,
      RecoveryClient client,
      boolean atLeastOnce,
      Duration probeInterval,
      MeterRegistry meters,
      Ticker ticker) {
    this(sink, client, atLeastOnce, probeInterval, meters, ticker, workerId -> true);
  }

  /**
   * A follower that takes only the events of workers {@code member} accepts (read on its thread;
   * safe to read from any thread): where a subscription carries other workers' events too (several
   * models' workers on one Dynamo endpoint), theirs are dropped and counted, and no rank is kept
   * for them.
   */
  public DynamoEventFollower(
      KvEventSink sink,
      RecoveryClient client,
      boolean atLeastOnce,
      Duration probeInterval,
      MeterRegistry meters,
      Ticker ticker,
      Predicate<String> member) {
    this.member = Objects.requireNonNull(member, "member");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.client = Objects.requireNonNull(client, "client");
    this.settings =
        new DynamoEventSequencer.Settings(
            atLeastOnce, probeInterval, DynamoEventSequencer.MAX_HELD);
    this.registry = Objects.requireNonNull(meters, "meters");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    ScheduledThreadPoolExecutor executor =
        new ScheduledThreadPoolExecutor(1, DaemonThreads.named("kv-events-dynamo"));
    this.thread = executor;
    executor.scheduleWithFixedDelay(
        this::tick, TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
    this.malformed =
        Counter.builder(MetricNames.KV_EVENT_MALFORMED)
            .tag(MetricNames.TAG_FORMAT, "dynamo")
            .register(meters);
    this.faults =
        new FaultLog(log, "malformed KV event payloads", FaultLog.DEFAULT_INTERVAL, ticker);
    this.departedEvents =
        Counter.builder(MetricNames.EVENTS_DROPPED)
            .description("KV cache events dropped before the index, by format and reason")
            .tag(MetricNames.TAG_FORMAT, "dynamo")
            .tag(MetricNames.TAG_REASON, MetricNames.REASON_DEPARTED_WORKER)
            .register(meters);
    this.otherEvents =
        Counter.builder(MetricNames.EVENTS_DROPPED)
            .description("KV cache events dropped before the index, by format and reason")
            .tag(MetricNames.TAG_FORMAT, "dynamo")
            .tag(MetricNames.TAG_REASON, MetricNames.REASON_OTHER_WORKER)
            .register(meters);
    this.dumpQuestions = question(meters, "tree_dump");
    this.eventQuestions = question(meters, "events");
  }

  private static Counter question(MeterRegistry meters, String kind) {
    return Counter.builder(MetricNames.KV_EVENT_RECOVERY_QUERIES)
        .description("Questions asked of workers about their KV events, by what was asked")
        .tag(MetricNames.TAG_KIND, kind)
        .register(meters);
  }

  /** One payload from the NATS event plane: a JSON {@code RouterEvent}. */
  public void onMessage(byte[] payload) {
    accept(payload, bytes -> List.of(DynamoEventCodec.decode(bytes)));
  }

  /**
   * One payload from the ZMQ event plane: a msgpack {@code RouterEvent}, or a list of them in
   * order.
   */
  public void onMsgpack(byte[] payload) {
    accept(payload, DynamoMsgpackCodec::decodePayload, null, null, 0);
  }

  /**
   * One record of an event log (a Kafka partition), as {@link #onMsgpack(byte[])}: once its events
   * are handed to the index, {@code nextOffset} is where {@code partition} goes on, which {@link
   * #positions} reports.
   */
  public void onMsgpack(byte[] payload, String partition, long nextOffset) {
    accept(
        payload,
        DynamoMsgpackCodec::decodePayload,
        null,
        Objects.requireNonNull(partition, "partition"),
        nextOffset);
  }

  /**
   * One envelope of Dynamo v1.5's event plane (NATS or ZMQ): its payload is a msgpack list of
   * {@code RouterEvent}s (or one); its publisher id names the recovery endpoint of the ranks whose
   * events it carries.
   */
  public void onEnvelope(EventEnvelope envelope) {
    accept(envelope.payload(), DynamoMsgpackCodec::decodePayload, envelope.publisherId(), null, 0);
  }

  private void accept(byte[] payload, Function<byte[], List<DynamoRouterEvent>> decoder) {
    accept(payload, decoder, null, null, 0);
  }

  /**
   * Decodes on the caller's thread and applies on the follower's; a malformed payload is counted
   * and its events dropped, but its log position still moves on (reading it again would not help).
   */
  private void accept(
      byte[] payload,
      Function<byte[], List<DynamoRouterEvent>> decoder,
      Long publisherId,
      String partition,
      long nextOffset) {
    List<DynamoRouterEvent> decoded;
    try {
      decoded = decoder.apply(payload);
    } catch (IllegalArgumentException e) {
      malformed.increment();
      faults.fault(e.getMessage());
      decoded = List.of();
    }
    List<DynamoRouterEvent> events = decoded;
    submit(
        () -> {
          long now = ticker.nanos();
          for (DynamoRouterEvent event : events) {
            String workerId = event.event().worker().workerId();
            if (departed.contains(workerId)) {
              departedEvents.increment();
              continue;
            }
            if (!member.test(workerId)) {
              otherEvents.increment();
              continue;
            }
            Rank rank = rank(event.event().worker());
            if (publisherId != null) {
              rank.publisherId = publisherId;
            }
            rank.sequencer.event(event, now);
          }
          if (partition != null) {
            logOffsets.put(partition, nextOffset);
          }
        });
  }

  /**
   * Starts following {@code rank} before its first event: asks for its tree dump now. A worker
   * {@linkplain #forget forgotten} before is followed again, from nothing.
   */
  public void follow(WorkerRank rank) {
    submit(
        () -> {
          departed.remove(rank.workerId());
          rank(rank).sequencer.resync();
        });
  }

  /**
   * Starts following {@code rank} from a snapshot: its state there is {@code events}, up to event
   * {@code lastEventId}, published by {@code publisherId} (null when unknown). The events go to the
   * index at {@link #catchUp}, once the rank's worker is followed (the router takes no events of a
   * worker it does not route to); until then the rank's live events wait, and nothing is asked.
   */
  public void restore(
      WorkerRank rank, long lastEventId, Long publisherId, List<KvCacheEvent> events) {
    List<KvCacheEvent> state = List.copyOf(events);
    submit(
        () -> {
          departed.remove(rank.workerId());
          Rank restored = rank(rank);
          restored.sequencer.restore(lastEventId);
          restored.snapshot = state;
          if (publisherId != null) {
            restored.publisherId = publisherId;
          }
        });
  }

  /**
   * Brings {@code rank}, whose worker is followed now, up to date: a rank still {@link #restore}d
   * puts its snapshot state into the index, applies the live events that follow on, and asks its
   * worker for what came after; any other rank asks for a tree dump, as {@link #follow} does.
   */
  public void catchUp(WorkerRank rank) {
    submit(
        () -> {
          departed.remove(rank.workerId());
          Rank followed = rank(rank);
          List<KvCacheEvent> snapshot = followed.snapshot;
          followed.snapshot = null;
          if (snapshot != null && followed.sequencer.isRestored()) {
            // not counted as applied: the snapshot holds it already
            snapshot.forEach(event -> sink.apply(rank, event));
          }
          followed.sequencer.catchUp();
        });
  }

  /**
   * Where the follower is, for a snapshot.
   *
   * @param lastEventIds the last event id applied per rank whose position is known and whose state
   *     is whole there (not while its events are applied as they come because its worker does not
   *     answer): a router started from a snapshot asks the others for their state
   * @param publisherIds per rank, the publisher whose envelope last carried its events, where one
   *     did
   * @param waitingStates the snapshot state of each rank restored and not caught up yet: not in the
   *     index, so a snapshot taken now must add it to the index's dump
   * @param logOffsets per event-log partition ({@code topic/partition}), the offset after the last
   *     record handed to the index; empty off a log
   */
  public record Positions(
      Map<WorkerRank, Long> lastEventIds,
      Map<WorkerRank, Long> publisherIds,
      Map<WorkerRank, List<KvCacheEvent>> waitingStates,
      Map<String, Long> logOffsets) {
    public Positions {
      lastEventIds = Map.copyOf(lastEventIds);
      publisherIds = Map.copyOf(publisherIds);
      waitingStates = Map.copyOf(waitingStates);
      logOffsets = Map.copyOf(logOffsets);
    }
  }

  /**
   * The follower's positions, read on its thread after every event handed to it before: the index
   * holds at least those events once they reach it.
   */
  public CompletableFuture<Positions> positions() {
    return CompletableFuture.supplyAsync(
        () -> {
          Map<WorkerRank, Long> positions = new HashMap<>();
          Map<WorkerRank, Long> publishers = new HashMap<>();
          Map<WorkerRank, List<KvCacheEvent>> waiting = new HashMap<>();
          ranks.forEach(
              (rank, followed) -> {
                Long position = followed.sequencer.position();
                if (position != null && followed.sequencer.isTrusted()) {
                  positions.put(rank, position);
                }
                if (followed.publisherId != null) {
                  publishers.put(rank, followed.publisherId);
                }
                if (followed.snapshot != null && followed.sequencer.isRestored()) {
                  waiting.put(rank, followed.snapshot);
                }
              });
          return new Positions(positions, publishers, waiting, logOffsets);
        },
        thread);
  }

  /**
   * How many events this follower has handed to the index, from live events and answers alike: what
   * a snapshot writer counts to know when the index has changed enough.
   */
  public long appliedEvents() {
    return appliedEvents.sum();
  }

  /**
   * Stops following every rank of {@code workerId} (the worker left): no question is asked of it
   * any more, answers still on their way are ignored, its feeds read as unsynced and its meters go;
   * its events are dropped until {@link #follow} names one of its ranks again. The index entries
   * are the caller's to remove.
   */
  public void forget(String workerId) {
    Objects.requireNonNull(workerId, "workerId");
    submit(
        () -> {
          departed.add(workerId);
          ranks.values().removeIf(r -> r.rank.workerId().equals(workerId) && r.drop());
        });
  }

  /**
   * Stops following {@code rank} alone (a rank a snapshot named that its worker no longer has): its
   * sequencer, snapshot state and meters go. A later event or {@link #follow} of it starts it
   * afresh.
   */
  public void forget(WorkerRank rank) {
    Objects.requireNonNull(rank, "rank");
    submit(
        () -> {
          Rank followed = ranks.remove(rank);
          if (followed != null) {
            followed.drop();
          }
        });
  }

  /** Every rank seen so far asks for a tree dump again (events may have been lost). */
  public void resyncAll() {
    submit(() -> ranks.values().forEach(r -> r.sequencer.resync()));
  }

  /**
   * How {@code rank}'s stream is followed, for {@code /router/workers}: {@code unsynced} with zeros
   * before anything of it was seen. Never blocks; the counts are read one by one, so under traffic
   * they may be a few events apart.
   */
  public KvEventFeed feed(WorkerRank rank) {
    Rank followed = ranks.get(rank);
    return followed == null
        ? new KvEventFeed(KvEventFeed.UNSYNCED, -1, 0, 0, 0, 0, -1)
        : followed.sequencer.feed(ticker.nanos());
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }

  /** For tests: runs on the follower's thread after everything submitted before it. */
  CompletableFuture<Void> sync() {
    return CompletableFuture.runAsync(() -> {}, thread);
  }

  private void submit(Runnable task) {
    try {
      thread.execute(
          () -> {
            try {
              task.run();
            } catch (RuntimeException e) {
              log.error("KV event follower failed on a task", e);
            }
          });
    } catch (RejectedExecutionException e) {
      // closed: nothing follows any more
    }
  }

  private void tick() {
    long now = ticker.nanos();
    try {
      ranks.values().forEach(r -> r.sequencer.tick(now));
    } catch (RuntimeException e) {
      // a periodic task that throws is never run again: keep ticking
      log.error("ticking the followed ranks failed", e);
    }
  }

  private Rank rank(WorkerRank rank) {
    return ranks.computeIfAbsent(rank, Rank::new);
  }

  /** One rank's sequencer, and what it asks for done with the index and the recovery client. */
  private final class Rank implements DynamoEventSequencer.Output {
    private final WorkerRank rank;
    private final DynamoEventSequencer sequencer;

    /** The rank's meters, removed when it is dropped. */
    private final List<Meter> meters = new ArrayList<>();

    /** Set on the follower's thread when its worker was forgotten: it applies and asks nothing. */
    private boolean dropped;

    /** The publisher of the rank's latest envelope; read and written on the follower's thread. */
    private Long publisherId;

    /**
     * The rank's state in the snapshot it was restored from, until it catches up; on the thread.
     */
    private List<KvCacheEvent> snapshot;

    Rank(WorkerRank rank) {
      this.rank = rank;
      this.sequencer = new DynamoEventSequencer(rank, settings, this, ticker.nanos());
      Map<String, ToDoubleFunction<DynamoEventSequencer>> counters =
          Map.of(
              MetricNames.KV_EVENT_BATCHES, DynamoEventSequencer::applied,
              MetricNames.KV_EVENT_GAPS, DynamoEventSequencer::gaps,
              MetricNames.KV_EVENT_DUPLICATES, DynamoEventSequencer::duplicates,
              MetricNames.KV_EVENT_RESETS, DynamoEventSequencer::resets,
              MetricNames.KV_EVENT_INCOMPLETE_REPLAYS, DynamoEventSequencer::failedQueries);
      counters.forEach(
          (name, value) ->
              meters.add(
                  FunctionCounter.builder(name, sequencer, value)
                      .tag(MetricNames.TAG_WORKER_ID, rank.workerId())
                      .tag(MetricNames.TAG_DP_RANK, String.valueOf(rank.dpRank()))
                      .register(registry)));
      meters.add(
          FunctionCounter.builder(
                  MetricNames.KV_EVENT_ABANDONED_REPLAYS,
                  sequencer,
                  DynamoEventSequencer::heldLimitReached)
              .tag(MetricNames.TAG_WORKER_ID, rank.workerId())
              .tag(MetricNames.TAG_DP_RANK, String.valueOf(rank.dpRank()))
              .tag(MetricNames.TAG_REASON, MetricNames.REASON_HELD_LIMIT)
              .register(registry));
    }

    /** Stops the rank for good and removes its meters; true, for {@code removeIf}. */
    boolean drop() {
      dropped = true;
      meters.forEach(registry::remove);
      return true;
    }

    @Override
    public void apply(KvCacheEvent event) {
      if (!dropped) {
        appliedEvents.increment();
        sink.apply(rank, event);
      }
    }

    @Override
    public void ask(long question, Long start, Long end) {
      if (dropped) {
        return;
      }
      (start == null ? dumpQuestions : eventQuestions).increment();
      CompletableFuture<WorkerKvQueryResult> answer;
      try {
        answer = client.query(rank, publisherId, start, end);
      } catch (RuntimeException e) {
        answer = CompletableFuture.failedFuture(e);
      }
      answer.whenComplete(
          (result, error) ->
              submit(
                  () -> {
                    if (dropped) {
                      return;
                    }
                    if (error != null) {
                      sequencer.unanswered(question, error, ticker.nanos());
                    } else {
                      sequencer.answered(question, result, ticker.nanos());
                    }
                  }));
    }
  }
}
