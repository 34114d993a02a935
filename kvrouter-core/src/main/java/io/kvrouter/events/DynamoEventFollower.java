package io.kvrouter.events;

import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvEventFeed;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoEventCodec;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult;
import io.kvrouter.routing.index.KvEventSink;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the KV index true to each worker rank's stream of Dynamo {@code RouterEvent}s, whose ids
 * count 0, 1, 2, … per rank, by asking the worker itself whenever the stream cannot be trusted
 * (Dynamo's worker-side {@code LocalKvIndexer} recovery, {@code reference/dynamo-kv-router.md} §3).
 * Per rank, {@code last} is the last id applied: unknown (null) until the rank's state is known,
 * and {@code NOTHING} (u64 max, so that {@code NOTHING + 1 == 0}) before event 0. On each live
 * event with id {@code e}:
 *
 * <pre>
 *   e &gt; 0 was covered by an       a straggler: the answer overtook it (core NATS delivers
 *   answer in the last second         answers and events on different subscriptions); dropped
 *   e &lt;= last, at-least-once         a repeat (JetStream redelivery); dropped
 *   e == 0                         a publisher's first event, its cache empty: clear the rank,
 *                                     apply, last = 0 (a reset, if last was a real position)
 *   last unknown, or a question    hold e; ask for a tree dump if nothing is asked yet
 *     is out, or events are held
 *   e &lt;= last, at-most-once         core NATS never repeats: the worker restarted and its
 *                                     event 0 was lost; ask for a tree dump
 *   e == last + 1                  apply, last = e
 *   e &gt; last + 1                   a gap: hold e; ask for events last+1 .. e-1
 * </pre>
 *
 * Answers: {@code Events} are applied from {@code last + 1} in order (a worker may leave out what
 * came before a {@code Cleared}); one with a hole, or short of the gap it was asked for, asks for a
 * tree dump instead (asking the same again would loop); a {@code TreeDump} clears the rank, applies
 * the dump and sets {@code last} to its {@code last_event_id} (0 there may mean "no event yet", so
 * it reads as {@code NOTHING}: a following event 0 is applied, and a repeat of event 0 is
 * harmless); a dump without {@code last_event_id} (older Dynamo) takes its position from the next
 * event. {@code TooNew} to a probe with {@code newest == last} means nothing was missed; any other
 * {@code TooNew} means the worker's ids went back (it restarted): ask for a tree dump. After every
 * answer the held events that follow on are applied; a hole among them asks again.
 *
 * <p>A failed query (no answer in time, {@code Error}, {@code InvalidRange}) is asked again after
 * 200 ms, doubling up to 5 s, for as long as it takes; meanwhile the rank reads {@code stale} and
 * the router keeps routing on what it has. After {@value #GIVE_UP_AFTER} failures in a row the
 * worker is taken not to answer at all (its query endpoint unreachable, say): rather than hold its
 * events forever, the follower applies them as they come, holes and all, and keeps asking for a
 * tree dump, which puts the rank right once it comes (an event 0 meanwhile supersedes the dump that
 * is out: it may be the old process's). A rank holding more than {@code maxHeld} events asks for a
 * tree dump instead of holding more, or, when a dump is out already, drops what it held: the dump
 * covers it.
 *
 * <p>A lost event is noticed when the next one arrives; a lost <em>last</em> event would never be.
 * So a rank that has been quiet for {@code probeInterval} is asked for anything after {@code last}:
 * the missed tail comes back as {@code Events}. This goes beyond Dynamo, which waits for the next
 * event.
 *
 * <p>{@link #resyncAll()} re-asks every known rank for a tree dump: the caller's answer to a
 * subscription that may have lost messages (a core NATS reconnect). {@link #follow} asks for a
 * rank's dump before its first event, so a new router learns the state of quiet workers too.
 *
 * <p>Not detected: a worker that restarts under the same worker id while every event it publishes
 * until its ids pass the router's {@code last} is lost. Its later events look like a gap, filled
 * from the new worker's buffer on top of the old state, until the next tree dump (after a
 * reconnect, say) puts it right. Dynamo sidesteps this by giving a restarted worker a new id (its
 * lease); it needs {@code last + 1} events in a row lost, event 0 among them.
 *
 * <p>All state lives on one thread; {@link #onMessage} and {@link #onMsgpack} decode on the
 * caller's thread and hand over. A payload that is not a {@code RouterEvent} (or, in msgpack, a
 * list of them) is counted and dropped whole.
 */
public final class DynamoEventFollower implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DynamoEventFollower.class);
  static final Duration FIRST_RETRY = Duration.ofMillis(200);
  static final Duration LAST_RETRY = Duration.ofSeconds(5);

  /** Held events beyond this are dropped and the rank asks for a tree dump instead. */
  static final int MAX_HELD = 100_000;

  /** After this many failed queries in a row a rank's events are applied without waiting. */
  static final int GIVE_UP_AFTER = 3;

  /** How long after an answer a live event it covered may still arrive (see answeredUpTo). */
  static final Duration STRAGGLER_WINDOW = Duration.ofSeconds(1);

  /** The position before event 0: u64 max, so that {@code NOTHING + 1 == 0}. */
  static final long NOTHING = -1;

  /** Asks a worker rank for events {@code start..end} (a tree dump when {@code start} is null). */
  public interface RecoveryClient {
    CompletableFuture<WorkerKvQueryResult> query(WorkerRank rank, Long start, Long end);
  }

  private final KvEventSink sink;
  private final RecoveryClient client;
  private final boolean atLeastOnce;
  private final long probeNanos;
  private final int maxHeld;
  private final MeterRegistry meters;
  private final ScheduledExecutorService thread;
  private final Counter malformed;

  /** Written on {@link #thread} only; {@link #feed} reads it from any thread. */
  private final Map<WorkerRank, RankState> ranks = new ConcurrentHashMap<>();

  /**
   * @param atLeastOnce true when the subscription may deliver an event twice (a JetStream durable
   *     consumer), false when it delivers at most once (core NATS)
   */
  public DynamoEventFollower(
      KvEventSink sink,
      RecoveryClient client,
      boolean atLeastOnce,
      Duration probeInterval,
      MeterRegistry meters) {
    this(sink, client, atLeastOnce, probeInterval, meters, MAX_HELD);
  }

  DynamoEventFollower(
      KvEventSink sink,
      RecoveryClient client,
      boolean atLeastOnce,
      Duration probeInterval,
      MeterRegistry meters,
      int maxHeld) {
    this.maxHeld = maxHeld;
    this.sink = Objects.requireNonNull(sink, "sink");
    this.atLeastOnce = atLeastOnce;
    this.probeNanos = probeInterval.toNanos();
    this.client = Objects.requireNonNull(client, "client");
    this.meters = Objects.requireNonNull(meters, "meters");
    ScheduledThreadPoolExecutor executor =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "kv-events-dynamo");
              t.setDaemon(true);
              return t;
            });
    executor.setRemoveOnCancelPolicy(true);
    this.thread = executor;
    long period = Math.max(1, probeInterval.toMillis() / 2);
    executor.scheduleWithFixedDelay(this::probeQuietRanks, period, period, TimeUnit.MILLISECONDS);
    this.malformed =
        Counter.builder(MetricNames.KV_EVENT_MALFORMED)
            .tag(MetricNames.TAG_FORMAT, "dynamo")
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
    accept(payload, DynamoMsgpackCodec::decodePayload);
  }

  private void accept(byte[] payload, Function<byte[], List<DynamoRouterEvent>> decoder) {
    List<DynamoRouterEvent> events;
    try {
      events = decoder.apply(payload);
    } catch (IllegalArgumentException e) {
      malformed.increment();
      log.warn("dropped a malformed KV event payload: {}", e.getMessage());
      return;
    }
    submit(() -> events.forEach(event -> rank(event.event().worker()).onEvent(event)));
  }

  /** Starts following {@code rank} before its first event: asks for its tree dump now. */
  public void follow(WorkerRank rank) {
    submit(() -> rank(rank).resync());
  }

  /** Every rank seen so far asks for a tree dump again (events may have been lost). */
  public void resyncAll() {
    submit(() -> ranks.values().forEach(RankState::resync));
  }

  /**
   * How {@code rank}'s stream is followed, for {@code /router/workers}: {@code unsynced} with zeros
   * before anything of it was seen. Never blocks; the counts are read one by one, so under traffic
   * they may be a few events apart.
   */
  public KvEventFeed feed(WorkerRank rank) {
    RankState state = ranks.get(rank);
    return state == null ? new KvEventFeed("unsynced", -1, 0, 0, 0, 0, -1) : state.feed();
  }

  @Override
  public void close() {
    thread.shutdownNow();
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
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed: nothing follows any more
    }
  }

  private void probeQuietRanks() {
    long now = System.nanoTime();
    try {
      ranks.values().forEach(r -> r.probeIfQuiet(now));
    } catch (RuntimeException e) {
      // a periodic task that throws is never run again: keep probing
      log.error("probing quiet ranks failed", e);
    }
  }

  private RankState rank(WorkerRank rank) {
    return ranks.computeIfAbsent(rank, RankState::new);
  }

  /** One rank's position in its stream. Only touched on {@link #thread}. */
  private final class RankState {
    private final WorkerRank rank;
    private final TreeMap<Long, DynamoRouterEvent> held = new TreeMap<>(Long::compareUnsigned);

    // Written on the follower's thread only; volatile so feed() may read them from any thread.
    /** The last id applied, {@link #NOTHING} before event 0; null while the position is unknown. */
    private volatile Long last;

    /**
     * The newest id an answer covered: a live event at or below it was already in flight when the
     * answer came (core NATS delivers answers and events on different subscriptions), so it is
     * dropped. {@link #NOTHING} once a live event beyond it arrived: nothing older follows.
     */
    private long answeredUpTo = NOTHING;

    private long answeredAtNanos;

    /** After a dump that did not say its position: the next event sets it. */
    private boolean adoptNext;

    /** Queries keep failing: the live stream is applied as it comes while a dump is asked for. */
    private volatile boolean bestEffort;

    /** The question in flight or waiting for its retry; an answer to an older one is ignored. */
    private long question;

    private Long askedStart;
    private Long askedEnd;
    private volatile boolean recovering;
    private volatile int failures;
    private volatile long applied;
    private volatile long duplicates;
    private volatile long gaps;
    private volatile long resets;
    private volatile long failedQueries;
    private volatile long lastEventNanos;

    /** The last event or answer; a rank quiet since longer than the probe interval is probed. */
    private long lastActivityNanos = System.nanoTime();

    RankState(WorkerRank rank) {
      this.rank = rank;
      Map<String, ToDoubleFunction<RankState>> counters =
          Map.of(
              MetricNames.KV_EVENT_BATCHES, s -> s.applied,
              MetricNames.KV_EVENT_GAPS, s -> s.gaps,
              MetricNames.KV_EVENT_DUPLICATES, s -> s.duplicates,
              MetricNames.KV_EVENT_RESETS, s -> s.resets,
              MetricNames.KV_EVENT_INCOMPLETE_REPLAYS, s -> s.failedQueries);
      counters.forEach(
          (name, value) ->
              FunctionCounter.builder(name, this, value)
                  .tag(MetricNames.TAG_WORKER_ID, rank.workerId())
                  .tag(MetricNames.TAG_DP_RANK, String.valueOf(rank.dpRank()))
                  .register(meters));
    }

    void onEvent(DynamoRouterEvent event) {
      lastEventNanos = System.nanoTime();
      lastActivityNanos = lastEventNanos;
      long id = event.eventId();
      if (isDuplicate(id)) {
        duplicates++;
        return;
      }
      if (answeredUpTo != NOTHING) {
        answeredUpTo = NOTHING; // this event is newer than the answer: no straggler follows it
      }
      if (bestEffort) {
        applyAnyway(event);
        if (id == 0) {
          held.clear();
          if (recovering) {
            ask(null, null); // the dump out may be the old process's
          }
        } else if (recovering) {
          held.put(id, event); // applied, and again after the dump the rank is waiting for
        }
        return;
      }
      if (id == 0) {
        restart(event);
      } else if (last == null && adoptNext && !recovering) {
        adoptNext = false;
        apply(event);
      } else if (last == null || recovering || !held.isEmpty()) {
        if (hold(event) && last == null && !recovering) {
          ask(null, null);
        }
      } else if (isOld(id)) {
        // core NATS delivers once and in order: an id seen before means the worker restarted
        // and its event 0 was lost
        log.info(
            "{} repeats event {} (last {}): it restarted; asking for its state", rank, id, last);
        resync();
      } else if (id == last + 1) {
        failures = 0;
        apply(event);
      } else {
        gaps++;
        if (hold(event)) {
          ask(last + 1, id - 1);
        }
      }
    }

    /**
     * A repeat of an applied event: any old id when delivery is at-least-once, else a straggler.
     */
    private boolean isDuplicate(long id) {
      if (answeredUpTo != NOTHING) {
        if (id != 0
            && System.nanoTime() - answeredAtNanos < STRAGGLER_WINDOW.toNanos()
            && Long.compareUnsigned(id, answeredUpTo) <= 0) {
          return true;
        }
      }
      return atLeastOnce
          && last != null
          && isOld(id)
          && (id != 0 || last == 0); // event 0 after more: a restart, not a repeat
    }

    /** Event 0 starts a publisher's life, with an empty cache: whatever the rank held is gone. */
    private void restart(DynamoRouterEvent event) {
      if (last != null && last != NOTHING) {
        resets++;
        log.info("{} published event 0 again (last {}): it restarted", rank, last);
      }
      question++; // an answer from before the restart is no longer true
      recovering = false;
      failures = 0;
      held.clear();
      sink.apply(rank, KvCacheEvent.cleared());
      apply(event);
    }

    /** Asks for anything after {@code last} when nothing happened for a while. */
    void probeIfQuiet(long now) {
      if (last != null
          && last != NOTHING
          && !recovering
          && !bestEffort
          && failures == 0
          && held.isEmpty()
          && now - lastActivityNanos > probeNanos) {
        lastActivityNanos = now;
        ask(last + 1, null);
      }
    }

    /** Forget the position and ask for a tree dump. */
    void resync() {
      held.clear();
      last = null;
      adoptNext = false;
      answeredUpTo = NOTHING;
      ask(null, null);
    }

    /** True when {@code id} is at or before the last applied id. */
    private boolean isOld(long id) {
      return last != null && last != NOTHING && Long.compareUnsigned(id, last) <= 0;
    }

    private void apply(DynamoRouterEvent event) {
      sink.apply(rank, event.event().event());
      last = event.eventId();
      applied++;
    }

    /** Best effort: apply whatever comes, in arrival order, noting holes it cannot fill. */
    private void applyAnyway(DynamoRouterEvent event) {
      long id = event.eventId();
      if (id == 0) {
        sink.apply(rank, KvCacheEvent.cleared());
      } else if (last != null && id != last + 1) {
        gaps++;
      }
      apply(event);
    }

    /** Holds {@code event} for later; false when too much is held and the rank resyncs instead. */
    private boolean hold(DynamoRouterEvent event) {
      if (held.size() >= maxHeld && recovering && askedStart == null) {
        held.clear(); // the dump out covers the older ones; drainHeld asks for the rest
      } else if (held.size() >= maxHeld) {
        log.warn(
            "{}: {} events held while waiting for an answer; asking for its state",
            rank,
            held.size());
        resync();
        return false;
      }
      held.put(event.eventId(), event);
      return true;
    }

    private void ask(Long start, Long end) {
      long asked = ++question;
      askedStart = start;
      askedEnd = end;
      recovering = true;
      CompletableFuture<WorkerKvQueryResult> answer;
      try {
        answer = client.query(rank, start, end);
      } catch (RuntimeException e) {
        answer = CompletableFuture.failedFuture(e);
      }
      answer.whenComplete((result, error) -> submit(() -> answered(asked, result, error)));
    }

    private void answered(long asked, WorkerKvQueryResult result, Throwable error) {
      if (asked != question) {
        return;
      }
      recovering = false;
      lastActivityNanos = System.nanoTime();
      if (error != null
          || result instanceof WorkerKvQueryResult.Error
          || result instanceof WorkerKvQueryResult.InvalidRange) {
        failed(error != null ? String.valueOf(error) : result.toString());
        return;
      }
      failures = 0;
      if (result instanceof WorkerKvQueryResult.TooNew tooNew) {
        long newest = tooNew.newestAvailable();
        if (last == null
            || (last != NOTHING && Long.compareUnsigned(newest, last) < 0)
            || askedEnd != null) {
          // the worker's ids went back, or it lacks ids it already sent: it restarted
          log.info("{} has no events after {} (last {}): it restarted", rank, newest, last);
          resync();
          return;
        }
      } else if (result instanceof WorkerKvQueryResult.TreeDump dump) {
        applyDump(dump);
      } else {
        if (last == null) {
          failed("an Events answer to a question for a tree dump");
          return;
        }
        boolean whole = applyAnswered(((WorkerKvQueryResult.Events) result).events());
        // a gap question must be answered up to its end; else asking again would loop
        if (!whole
            || askedEnd != null && (last == NOTHING || Long.compareUnsigned(last, askedEnd) < 0)) {
          log.info(
              "{} answered {}..{} with a hole; asking for its state", rank, askedStart, askedEnd);
          resync();
          return;
        }
      }
      drainHeld();
    }

    private void applyDump(WorkerKvQueryResult.TreeDump dump) {
      resets++;
      bestEffort = false;
      sink.apply(rank, KvCacheEvent.cleared());
      for (DynamoRouterEvent e : dump.events()) {
        sink.apply(rank, e.event().event());
      }
      // last_event_id 0 may mean "event 0" or "no event yet" (Dynamo's rule): expect event 0,
      // which clears and rebuilds should it come; a repeat of events already in the dump is
      // harmless, a lost event 0 would not be
      Long position = dump.lastEventId();
      if (position == null) {
        // an older worker's dump without last_event_id: trust the next event's id
        last = null;
        adoptNext = true;
        return;
      }
      last = position == 0 ? NOTHING : position;
      markAnswered(last);
    }

    /** Live events up to {@code upTo} arriving within the straggler window are stragglers. */
    private void markAnswered(long upTo) {
      answeredUpTo = upTo;
      answeredAtNanos = System.nanoTime();
    }

    /**
     * Applies an {@code Events} answer from {@code last + 1} on; a worker may leave out what came
     * before a {@code Cleared} it includes (Dynamo E3), so a clear may follow a hole.
     */
    private boolean applyAnswered(List<DynamoRouterEvent> events) {
      boolean whole = true;
      for (DynamoRouterEvent e : events) {
        long id = e.eventId();
        if (isOld(id)) {
          continue;
        }
        if (id != last + 1 && !(e.event().event() instanceof KvCacheEvent.Cleared)) {
          whole = false;
          break; // a hole: what is held, or the next event, asks again from it
        }
        apply(e);
      }
      if (last != NOTHING) {
        markAnswered(last);
      }
      return whole;
    }

    /** Applies held events that now follow on; a hole among them asks again. */
    private void drainHeld() {
      while (!held.isEmpty() && (last != null || adoptNext)) {
        Map.Entry<Long, DynamoRouterEvent> first = held.firstEntry();
        long id = first.getKey();
        if (last == null || id == last + 1) {
          adoptNext = false;
          apply(first.getValue());
        } else if (isOld(id)) {
          duplicates++;
        } else {
          ask(last + 1, id - 1);
          return;
        }
        held.remove(id);
      }
    }

    private void failed(String why) {
      failedQueries++;
      failures++;
      if (bestEffort) {
        held.clear(); // applied already; the next dump will cover them
      } else if (failures >= GIVE_UP_AFTER) {
        startBestEffort();
      }
      long delay =
          Math.min(LAST_RETRY.toMillis(), FIRST_RETRY.toMillis() << Math.min(failures - 1, 10));
      log.warn("KV recovery query to {} failed ({}); asking again in {} ms", rank, why, delay);
      long asked = question;
      Long start = bestEffort ? null : askedStart;
      Long end = bestEffort ? null : askedEnd;
      thread.schedule(
          () -> {
            if (asked == question && !recovering) {
              ask(start, end);
            }
          },
          delay,
          TimeUnit.MILLISECONDS);
    }

    /**
     * The worker does not answer: rather than hold its events forever, apply what is held and
     * everything that comes, holes and all, and keep asking for a tree dump in the background.
     */
    private void startBestEffort() {
      log.warn(
          "{} does not answer recovery queries; applying its events as they come until it"
              + " does",
          rank);
      bestEffort = true;
      for (DynamoRouterEvent e : held.values()) {
        applyAnyway(e);
      }
      held.clear();
    }

    KvEventFeed feed() {
      Long position = last;
      String state;
      if (bestEffort || failures > 0) {
        state = "stale";
      } else if (position == null) {
        state = "unsynced";
      } else {
        state = recovering ? "recovering" : "following";
      }
      return new KvEventFeed(
          state,
          position == null || position == NOTHING ? -1 : position,
          applied,
          gaps,
          resets,
          failedQueries,
          lastEventNanos == 0 ? -1 : (System.nanoTime() - lastEventNanos) / 1_000_000);
    }
  }

  /** For tests: runs {@code r} on the follower's thread after everything submitted before it. */
  CompletableFuture<Void> sync() {
    return CompletableFuture.runAsync(() -> {}, thread);
  }
}
