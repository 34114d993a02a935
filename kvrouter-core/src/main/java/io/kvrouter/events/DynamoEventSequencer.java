package io.kvrouter.events;

import io.kvrouter.common.LastSeen;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvEventFeed;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The recovery half of a {@link DynamoEventFollower} for one worker rank, without threads, clocks
 * or sockets: it is told the rank's live events, the answers to its questions, the questions that
 * got none, and the time ({@code now}, in a {@code Ticker}'s nanoseconds) with each call and with
 * {@link #tick}; it tells its {@link Output} what to apply to the index and what to ask the worker.
 * Its deadlines (a retry, a quiet rank's probe) are kept as instants on the clock it is given, and
 * met by the first {@link #tick} at or after them. Not thread-safe: the follower's thread owns it;
 * {@link #feed} and the counters may be read from any thread.
 *
 * <p>The rank's events carry ids 0, 1, 2, … and the worker answers questions about them (Dynamo's
 * worker-side {@code LocalKvIndexer} recovery, ai-dynamo/dynamo {@code
 * lib/llm/src/kv_router/indexer.rs}; the worker half here is the worker module's {@code
 * WorkerKvEventLog}). {@code last} is the last id applied: unknown (null) until the rank's state is
 * known, and {@link #NOTHING} (u64 max, so that {@code NOTHING + 1 == 0}) before event 0. On each
 * live event with id {@code e}:
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
 * answer the held events that follow on are applied; a hole among them asks again. Only the answer
 * to the latest question counts; an answer to an older one is ignored.
 *
 * <p>A failed question (no answer, {@code Error}, {@code InvalidRange}) is asked again {@link
 * #FIRST_RETRY} later, doubling up to {@link #LAST_RETRY}, for as long as it takes; meanwhile the
 * rank reads {@code stale} and the router keeps routing on what it has. After {@value
 * #GIVE_UP_AFTER} failures in a row the worker is taken not to answer at all (its query endpoint
 * unreachable, say): rather than hold its events forever, the sequencer applies them as they come,
 * holes and all, and keeps asking for a tree dump, which puts the rank right once it comes (an
 * event 0 meanwhile supersedes the dump that is out: it may be the old process's). A rank holding
 * {@code maxHeld} events asks for a tree dump instead of holding more, or, when a dump is out
 * already, drops what it held: the dump covers it (in best effort, what it held was applied
 * already; a gap after the dump is asked for). So a worker that never answers, or answers slowly
 * while it publishes fast, costs bounded memory; and no question waits for ever, the request plane
 * times it out ({@link #heldLimitReached()} counts the times the bound was hit).
 *
 * <p>A lost event is noticed when the next one arrives; a lost <em>last</em> event would never be.
 * So a rank that has been quiet (no event, no answer) for longer than the probe interval is asked
 * for anything after {@code last}: the missed tail comes back as {@code Events}. This goes beyond
 * Dynamo, which waits for the next event.
 *
 * <p>Not detected: a worker that restarts under the same worker id while every event it publishes
 * until its ids pass the router's {@code last} is lost. Its later events look like a gap, filled
 * from the new worker's buffer on top of the old state, until the next tree dump (after a
 * reconnect, say) puts it right. Dynamo sidesteps this by giving a restarted worker a new id (its
 * lease); it needs {@code last + 1} events in a row lost, event 0 among them.
 */
final class DynamoEventSequencer {
  private static final Logger log = LoggerFactory.getLogger(DynamoEventSequencer.class);

  /** The delay before a failed question is asked again the first time; it doubles from there. */
  static final Duration FIRST_RETRY = Duration.ofMillis(200);

  /** The longest delay before a failed question is asked again. */
  static final Duration LAST_RETRY = Duration.ofSeconds(5);

  /** Held events beyond this are dropped and the rank asks for a tree dump instead. */
  static final int MAX_HELD = 100_000;

  /** After this many failed questions in a row a rank's events are applied without waiting. */
  static final int GIVE_UP_AFTER = 3;

  /** How long after an answer a live event it covered may still arrive (see answeredUpTo). */
  static final Duration STRAGGLER_WINDOW = Duration.ofSeconds(1);

  /** The position before event 0: u64 max, so that {@code NOTHING + 1 == 0}. */
  static final long NOTHING = -1;

  /** What the sequencer asks of its follower; called synchronously, from its own calls. */
  interface Output {
    /** Apply {@code event} to the rank in the index. */
    void apply(KvCacheEvent event);

    /**
     * Ask the worker rank for events {@code start..end} ({@code end} null: up to its newest), or
     * for a tree dump when {@code start} is null. The answer comes back later, through {@link
     * #answered} or {@link #unanswered} with the same {@code question}.
     */
    void ask(long question, Long start, Long end);
  }

  /**
   * How every rank is followed.
   *
   * @param atLeastOnce true when the subscription may deliver an event twice (a JetStream durable
   *     consumer), false when it delivers at most once (core NATS)
   * @param probeInterval how long a rank may stay quiet before it is asked for anything after its
   *     last event
   * @param maxHeld how many events a rank holds at most while it waits for an answer
   */
  record Settings(boolean atLeastOnce, Duration probeInterval, int maxHeld) {
    Settings {
      Objects.requireNonNull(probeInterval, "probeInterval");
      if (maxHeld < 1) {
        throw new IllegalArgumentException("maxHeld must be >= 1: " + maxHeld);
      }
    }
  }

  /** A failed question, asked again at {@code dueNanos} unless another was asked since. */
  private record Retry(long dueNanos, long question, Long start, Long end) {}

  private final WorkerRank rank;
  private final Output out;
  private final boolean atLeastOnce;
  private final long probeNanos;
  private final int maxHeld;
  private final TreeMap<Long, DynamoRouterEvent> held = new TreeMap<>(Long::compareUnsigned);

  // Written by the owning thread only; volatile so feed() and the counters may be read anywhere.
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

  /** Questions keep failing: the live stream is applied as it comes while a dump is asked for. */
  private volatile boolean bestEffort;

  /** The question in flight or waiting for its retry; an answer to an older one is ignored. */
  private long question;

  private Long askedStart;
  private Long askedEnd;
  private Retry retry;
  private volatile boolean recovering;

  /** Restored from a snapshot, waiting for {@link #catchUp}: live events are held. */
  private boolean restored;

  private volatile int failures;
  private volatile long applied;
  private volatile long duplicates;
  private volatile long gaps;
  private volatile long resets;
  private volatile long failedQueries;
  private volatile long heldLimitReached;
  private final LastSeen lastEvent = new LastSeen();

  /** The last event or answer; a rank quiet for longer than the probe interval is probed. */
  private long lastActivityNanos;

  /**
   * @param rank the rank followed, for the log
   * @param now the time the rank starts being followed; its quiet period starts here
   */
  DynamoEventSequencer(WorkerRank rank, Settings settings, Output out, long now) {
    this.rank = Objects.requireNonNull(rank, "rank");
    this.out = Objects.requireNonNull(out, "out");
    this.atLeastOnce = settings.atLeastOnce();
    this.probeNanos = settings.probeInterval().toNanos();
    this.maxHeld = settings.maxHeld();
    this.lastActivityNanos = now;
  }

  /** A live event of the rank, arrived at {@code now}. */
  void event(DynamoRouterEvent event, long now) {
    lastEvent.at(now);
    lastActivityNanos = now;
    long id = event.eventId();
    if (isDuplicate(id, now)) {
      duplicates++;
      return;
    }
    if (answeredUpTo != NOTHING) {
      answeredUpTo = NOTHING; // this event is newer than the answer: no straggler follows it
    }
    if (restored) {
      if (id == 0 && last != NOTHING) {
        // the worker restarted since the snapshot: the snapshot's state is the old process's,
        // and catchUp asks for the new one's
        log.info("{} published event 0 after the snapshot it was restored from", rank);
        restored = false;
        last = null;
      }
      hold(event); // nothing reaches the index before its worker is followed
      return;
    }
    if (bestEffort) {
      applyAnyway(event);
      if (id == 0) {
        held.clear();
        if (recovering) {
          ask(null, null); // the dump out may be the old process's
        }
      } else if (recovering) {
        hold(event); // applied, and again after the dump the rank is waiting for
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
      log.info("{} repeats event {} (last {}): it restarted; asking for its state", rank, id, last);
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

  /** The worker's answer to {@code asked}, arrived at {@code now}. */
  void answered(long asked, WorkerKvQueryResult result, long now) {
    if (!takeAnswer(asked, now)) {
      return;
    }
    if (result instanceof WorkerKvQueryResult.Error
        || result instanceof WorkerKvQueryResult.InvalidRange) {
      failed(result.toString(), now);
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
      applyDump(dump, now);
    } else {
      if (last == null) {
        failed("an Events answer to a question for a tree dump", now);
        return;
      }
      boolean whole = applyAnswered(((WorkerKvQueryResult.Events) result).events(), now);
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

  /**
   * {@code asked} got no answer (the worker could not be reached, say), as found at {@code now}.
   */
  void unanswered(long asked, Throwable error, long now) {
    if (takeAnswer(asked, now)) {
      failed(String.valueOf(error), now);
    }
  }

  /**
   * The time is {@code now}: a failed question whose retry is due is asked again, and a rank quiet
   * for longer than the probe interval is asked for anything after its last event.
   */
  void tick(long now) {
    Retry due = retry;
    if (due != null && now - due.dueNanos() >= 0) {
      retry = null;
      if (due.question() == question && !recovering) {
        ask(due.start(), due.end());
      }
    }
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

  /**
   * Starts from a position a snapshot recorded: once its worker is followed, the index will hold
   * the rank's state up to event {@code lastEventId} ({@link #NOTHING}: before event 0). Until
   * {@link #catchUp}, live events are held (the snapshot's state is not in the index yet) and
   * nothing is asked.
   */
  void restore(long lastEventId) {
    held.clear();
    adoptNext = false;
    answeredUpTo = NOTHING;
    last = lastEventId;
    recovering = true; // holds live events, asks nothing, probes nothing
    restored = true;
  }

  /**
   * Brings the rank up to date once its worker is followed. A rank still {@link #restore}d applies
   * the events held since that follow on, then asks for what came after (a gap among them asks for
   * the gap); a worker whose buffer no longer reaches back answers with a tree dump, or with a hole
   * that asks for one. Any other rank asks for a tree dump: what it applied before its worker was
   * followed may not have reached the index.
   */
  void catchUp() {
    if (!restored) {
      resync();
      return;
    }
    restored = false;
    recovering = false;
    drainHeld();
    if (!recovering) {
      ask(last + 1, null);
    }
  }

  /** Whether the rank was {@link #restore}d and has not caught up or started over since. */
  boolean isRestored() {
    return restored;
  }

  /**
   * Whether the rank's state is whole at its position: not while its events are applied as they
   * come because its worker does not answer (holes and all).
   */
  boolean isTrusted() {
    return !bestEffort;
  }

  /** The last id applied ({@link #NOTHING} before event 0); null while the position is unknown. */
  Long position() {
    return last;
  }

  /** Forget the position and ask for a tree dump. */
  void resync() {
    restored = false;
    held.clear();
    last = null;
    adoptNext = false;
    answeredUpTo = NOTHING;
    ask(null, null);
  }

  /**
   * How the rank's stream is followed, as of {@code now}. The counts are read one by one, so under
   * traffic they may be a few events apart.
   */
  KvEventFeed feed(long now) {
    Long position = last;
    String state;
    if (bestEffort || failures > 0) {
      state = KvEventFeed.STALE;
    } else if (position == null) {
      state = KvEventFeed.UNSYNCED;
    } else {
      state = recovering ? KvEventFeed.RECOVERING : KvEventFeed.FOLLOWING;
    }
    return new KvEventFeed(
        state,
        position == null || position == NOTHING ? -1 : position,
        applied,
        gaps,
        resets,
        failedQueries,
        lastEvent.millisSince(now));
  }

  /** Events applied, live or from answers (not counting tree dumps). */
  long applied() {
    return applied;
  }

  /** Events dropped as repeats or stragglers. */
  long duplicates() {
    return duplicates;
  }

  long gaps() {
    return gaps;
  }

  /** Tree dumps applied and restarts seen. */
  long resets() {
    return resets;
  }

  /** Questions that failed. */
  long failedQueries() {
    return failedQueries;
  }

  /** Times the events held while waiting for an answer reached {@code maxHeld}. */
  long heldLimitReached() {
    return heldLimitReached;
  }

  /** True when {@code asked} is the question out, which is then answered. */
  private boolean takeAnswer(long asked, long now) {
    if (asked != question) {
      return false;
    }
    recovering = false;
    lastActivityNanos = now;
    return true;
  }

  /** A repeat of an applied event: any old id when delivery is at-least-once, else a straggler. */
  private boolean isDuplicate(long id, long now) {
    if (answeredUpTo != NOTHING) {
      if (id != 0
          && now - answeredAtNanos < STRAGGLER_WINDOW.toNanos()
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
    out.apply(KvCacheEvent.cleared());
    apply(event);
  }

  /** True when {@code id} is at or before the last applied id. */
  private boolean isOld(long id) {
    return last != null && last != NOTHING && Long.compareUnsigned(id, last) <= 0;
  }

  private void apply(DynamoRouterEvent event) {
    out.apply(event.event().event());
    last = event.eventId();
    applied++;
  }

  /** Best effort: apply whatever comes, in arrival order, noting holes it cannot fill. */
  private void applyAnyway(DynamoRouterEvent event) {
    long id = event.eventId();
    if (id == 0) {
      out.apply(KvCacheEvent.cleared());
    } else if (last != null && id != last + 1) {
      gaps++;
    }
    apply(event);
  }

  /** Holds {@code event} for later; false when too much is held and the rank resyncs instead. */
  private boolean hold(DynamoRouterEvent event) {
    if (held.size() >= maxHeld) {
      heldLimitReached++;
    }
    if (held.size() >= maxHeld && recovering && askedStart == null) {
      // the dump out (or a restored rank's catch-up) covers the older ones; drainHeld asks for
      // the rest
      held.clear();
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
    out.ask(asked, start, end);
  }

  private void applyDump(WorkerKvQueryResult.TreeDump dump, long now) {
    resets++;
    bestEffort = false;
    out.apply(KvCacheEvent.cleared());
    for (DynamoRouterEvent e : dump.events()) {
      out.apply(e.event().event());
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
    markAnswered(last, now);
  }

  /** Live events up to {@code upTo} arriving within the straggler window are stragglers. */
  private void markAnswered(long upTo, long now) {
    answeredUpTo = upTo;
    answeredAtNanos = now;
  }

  /**
   * Applies an {@code Events} answer from {@code last + 1} on; a worker may leave out what came
   * before a {@code Cleared} it includes (Dynamo E3), so a clear may follow a hole.
   */
  private boolean applyAnswered(List<DynamoRouterEvent> events, long now) {
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
      markAnswered(last, now);
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

  private void failed(String why, long now) {
    failedQueries++;
    failures++;
    if (bestEffort) {
      held.clear(); // applied already; the next dump will cover them
    } else if (failures >= GIVE_UP_AFTER) {
      startBestEffort();
    }
    long delayMillis =
        Math.min(LAST_RETRY.toMillis(), FIRST_RETRY.toMillis() << Math.min(failures - 1, 10));
    log.warn("KV recovery query to {} failed ({}); asking again in {} ms", rank, why, delayMillis);
    retry =
        new Retry(
            now + Duration.ofMillis(delayMillis).toNanos(),
            question,
            bestEffort ? null : askedStart,
            bestEffort ? null : askedEnd);
  }

  /**
   * The worker does not answer: rather than hold its events forever, apply what is held and
   * everything that comes, holes and all, and keep asking for a tree dump in the background.
   */
  private void startBestEffort() {
    log.warn(
        "{} does not answer recovery queries; applying its events as they come until it" + " does",
        rank);
    bestEffort = true;
    for (DynamoRouterEvent e : held.values()) {
      applyAnyway(e);
    }
    held.clear();
  }
}
