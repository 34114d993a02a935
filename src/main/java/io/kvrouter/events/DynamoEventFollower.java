package io.kvrouter.events;

import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvEventFeed;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoEventCodec;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult;
import io.kvrouter.routing.index.KvEventSink;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the KV index true to each worker rank's stream of Dynamo {@code RouterEvent}s, whose ids
 * count 0, 1, 2, … per rank, by asking the worker itself whenever the stream cannot be trusted
 * (Dynamo's worker-side {@code LocalKvIndexer} recovery, {@code reference/dynamo-kv-router.md}
 * §3). Per rank, on each live event with id {@code e}, where {@code last} is the last id applied:
 *
 * <pre>
 *   e == 0                      the publisher (re)started: clear the rank, apply, last = 0
 *   rank not synced yet         hold e; ask for a tree dump            (new router, new rank)
 *   a recovery is running       hold e
 *   e &lt;= last                   at-least-once delivery (JetStream): a duplicate, dropped;
 *                               at-most-once (core NATS) never repeats: the worker restarted
 *                               and its event 0 was lost, so ask for a tree dump
 *   e == last + 1               apply, last = e
 *   e &gt; last + 1               a gap: hold e; ask for events last+1 .. e-1
 * </pre>
 *
 * Answers: {@code Events} are applied in order (ids already applied are skipped; a hole in the
 * answer asks again from the hole); a {@code TreeDump} clears the rank, applies the dump and sets
 * {@code last} to its {@code last_event_id}; {@code TooNew} means the worker's ids went back (it
 * restarted) and asks for a tree dump. Then the held events are applied as if they arrived now.
 * A failed query (no answer in time, {@code Error}, {@code InvalidRange}) is retried after
 * 200 ms, doubling up to 5 s, for as long as it takes; meanwhile the rank reads {@code stale}
 * and the router keeps routing on what it has. Until the dump arrives the index keeps the rank's
 * old blocks: a slightly wrong tree routes better than an empty one.
 *
 * <p>A lost event is noticed when the next one arrives; a lost <em>last</em> event would never be.
 * So a rank that has been quiet for {@code probeInterval} is asked for anything after {@code
 * last}: {@code TooNew} with {@code newest == last} means nothing was missed (a worker whose
 * newest id is below {@code last} restarted, and is asked for a tree dump); {@code Events} are the
 * missed tail. This goes beyond Dynamo, which waits for the next event.
 *
 * <p>{@link #resyncAll()} re-asks every known rank for a tree dump: the caller's answer to a
 * subscription that may have lost messages (a core NATS reconnect). {@link #follow} asks for a
 * rank's dump before its first event, so a new router learns the state of quiet workers too.
 *
 * <p>All state lives on one thread; {@link #onMessage} decodes on the caller's thread and hands
 * over. A payload that is not a {@code RouterEvent} is counted and dropped.
 */
public final class DynamoEventFollower implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DynamoEventFollower.class);
  static final Duration FIRST_RETRY = Duration.ofMillis(200);
  static final Duration LAST_RETRY = Duration.ofSeconds(5);
  /** Held events beyond this are dropped and the rank asks for a tree dump instead. */
  static final int MAX_HELD = 100_000;

  /** Asks a worker rank for events {@code start..end} (a tree dump when {@code start} is null). */
  public interface RecoveryClient {
    CompletableFuture<WorkerKvQueryResult> query(WorkerRank rank, Long start, Long end);
  }

  private final KvEventSink sink;
  private final RecoveryClient client;
  private final boolean atLeastOnce;
  private final long probeNanos;
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

  /** One payload from the event plane: a JSON {@code RouterEvent}. */
  public void onMessage(byte[] payload) {
    DynamoRouterEvent event;
    try {
      event = DynamoEventCodec.decode(payload);
    } catch (IllegalArgumentException e) {
      malformed.increment();
      log.warn("dropped a malformed KV event: {}", e.getMessage());
      return;
    }
    submit(() -> rank(event.event().worker()).onEvent(event));
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
   * How {@code rank}'s stream is followed, for {@code /router/workers}: {@code unsynced} with
   * zeros before anything of it was seen. Never blocks; the counts are read one by one, so under
   * traffic they may be a few events apart.
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
    ranks.values().forEach(r -> r.probeIfQuiet(now));
  }

  private RankState rank(WorkerRank rank) {
    return ranks.computeIfAbsent(rank, RankState::new);
  }

  /** One rank's position in its stream. Only touched on {@link #thread}. */
  private final class RankState {
    private final WorkerRank rank;
    private final TreeMap<Long, DynamoRouterEvent> held = new TreeMap<>(Long::compareUnsigned);
    // Written on the follower's thread only; volatile so feed() may read them from any thread.
    /** The last id applied; null while the rank's state is unknown. */
    private volatile Long last;
    /** After a dump taken before the worker's first event: its next event 0 is new. */
    private volatile boolean zeroIsNew;
    /** Bumped by every new question; an answer to an older one is ignored. */
    private long question;
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
      if (id == 0 && atLeastOnce && last != null && last == 0 && !recovering) {
        duplicates++;
        return;
      }
      if (id == 0 && !zeroIsNew) {
        // a publisher's first event: whatever the rank held before is gone
        question++;
        recovering = false;
        held.clear();
        if (last != null) {
          resets++;
        }
        sink.apply(rank, KvCacheEvent.cleared());
        apply(event);
        return;
      }
      if (recovering || last == null) {
        hold(event);
        if (!recovering) {
          ask(null, null);
        }
        return;
      }
      if (isNext(id)) {
        apply(event);
      } else if (Long.compareUnsigned(id, last) <= 0) {
        if (atLeastOnce) {
          duplicates++;
        } else {
          resync();
        }
      } else {
        gaps++;
        hold(event);
        ask(last + 1, id - 1);
      }
    }

    /** Asks for anything after {@code last} when nothing happened for a while. */
    void probeIfQuiet(long now) {
      if (last != null && !recovering && failures == 0 && now - lastActivityNanos > probeNanos) {
        lastActivityNanos = now;
        ask(last + 1, null);
      }
    }

    /** Forget the position and ask for a tree dump. */
    void resync() {
      held.clear();
      last = null;
      zeroIsNew = false;
      ask(null, null);
    }

    private boolean isNext(long id) {
      return (zeroIsNew && id == 0) || (last != null && id == last + 1);
    }

    private void apply(DynamoRouterEvent event) {
      sink.apply(rank, event.event().event());
      last = event.eventId();
      zeroIsNew = false;
      applied++;
    }

    private void hold(DynamoRouterEvent event) {
      if (held.size() >= MAX_HELD) {
        held.clear();
        last = null;
      }
      held.put(event.eventId(), event);
    }

    private void ask(Long start, Long end) {
      long asked = ++question;
      recovering = true;
      CompletableFuture<WorkerKvQueryResult> answer;
      try {
        answer = client.query(rank, start, end);
      } catch (RuntimeException e) {
        answer = CompletableFuture.failedFuture(e);
      }
      answer.whenComplete((result, error) -> submit(() -> answered(asked, start, result, error)));
    }

    private void answered(long asked, Long start, WorkerKvQueryResult result, Throwable error) {
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
        if (last != null && tooNew.newestAvailable() == last) {
          return; // a probe of a quiet rank: nothing was missed
        }
        // the worker's newest id is below what we saw from it: it restarted
        resync();
        return;
      }
      if (result instanceof WorkerKvQueryResult.TreeDump dump) {
        resets++;
        sink.apply(rank, KvCacheEvent.cleared());
        for (DynamoRouterEvent e : dump.events()) {
          sink.apply(rank, e.event().event());
        }
        last = dump.lastEventId();
        zeroIsNew = dump.lastEventId() == 0;
      } else {
        for (DynamoRouterEvent e : ((WorkerKvQueryResult.Events) result).events()) {
          if (isNext(e.eventId())) {
            apply(e);
          }
        }
      }
      drainHeld();
    }

    /** Applies held events that now follow on; a hole among them asks again. */
    private void drainHeld() {
      Iterator<Map.Entry<Long, DynamoRouterEvent>> it = held.entrySet().iterator();
      while (it.hasNext()) {
        DynamoRouterEvent event = it.next().getValue();
        long id = event.eventId();
        if (isNext(id)) {
          apply(event);
          it.remove();
        } else if (last != null && Long.compareUnsigned(id, last) <= 0 && !zeroIsNew) {
          duplicates++;
          it.remove();
        } else {
          ask(last == null ? null : last + 1, id - 1);
          return;
        }
      }
    }

    private void failed(String why) {
      failedQueries++;
      failures++;
      long delay =
          Math.min(LAST_RETRY.toMillis(), FIRST_RETRY.toMillis() << Math.min(failures - 1, 10));
      log.warn("KV recovery query to {} failed ({}); asking again in {} ms", rank, why, delay);
      long asked = question;
      thread.schedule(
          () -> {
            if (asked == question && !recovering) {
              if (last == null) {
                ask(null, null);
              } else {
                drainHeld();
              }
            }
          },
          delay,
          TimeUnit.MILLISECONDS);
    }

    KvEventFeed feed() {
      String state;
      if (recovering || failures > 0) {
        state = failures > 0 ? "stale" : last == null ? "unsynced" : "recovering";
      } else {
        state = last == null ? "unsynced" : "following";
      }
      return new KvEventFeed(
          state,
          last == null || zeroIsNew ? -1 : last,
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
