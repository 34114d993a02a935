package io.kvrouter.protocol;

import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * How well the router follows one worker rank's KV cache events: what {@code /router/workers}
 * shows. Routing goes on in every state; the states say how far the index can be trusted.
 *
 * @param state one of, from worst to best (a worker of several ranks shows its worst rank's, see
 *     {@link #combine}):
 *     <ul>
 *       <li>{@value #STOPPED}: the subscriber no longer runs (it was closed, or its thread died on
 *           an error); the index keeps what it had and is no longer updated for the rank;
 *       <li>{@value #STALE}: the worker does not answer recovery queries (NATS): the index keeps
 *           what it had, or applies events without being able to fill gaps;
 *       <li>{@value #UNSYNCED}: the rank's state is not known yet (nothing received);
 *       <li>{@value #RECOVERING}: asking the worker for missed events or its tree dump (NATS); the
 *           index lags the worker meanwhile;
 *       <li>{@value #REPLAYING}: catching up on missed batches from the publisher's replay buffer
 *           (ZMQ); the index lags the worker meanwhile;
 *       <li>{@value #FOLLOWING}: every event so far applied, in sequence.
 *     </ul>
 *
 * @param lastSeq the last sequence number received; -1 before the first
 * @param batches batches applied
 * @param gaps sequence gaps seen
 * @param resets times the worker's state was unknown or lost and rebuilt
 * @param incompleteReplays replays that could not bring every missing batch
 * @param millisSinceLastBatch since the last batch arrived; -1 before the first
 */
public record KvEventFeed(
    String state,
    long lastSeq,
    long batches,
    long gaps,
    long resets,
    long incompleteReplays,
    long millisSinceLastBatch) {
  public static final String STOPPED = "stopped";
  public static final String STALE = "stale";
  public static final String UNSYNCED = "unsynced";
  public static final String RECOVERING = "recovering";
  public static final String REPLAYING = "replaying";
  public static final String FOLLOWING = "following";

  /** The states, worst first. */
  public static final List<String> STATES =
      List.of(STOPPED, STALE, UNSYNCED, RECOVERING, REPLAYING, FOLLOWING);

  public KvEventFeed {
    Objects.requireNonNull(state, "state");
  }

  /**
   * The feeds of one worker's data-parallel ranks as one: the worst state, the lowest last sequence
   * number, counts summed, and the longest silence.
   */
  public static KvEventFeed combine(List<KvEventFeed> ranks) {
    if (ranks.isEmpty()) {
      throw new IllegalArgumentException("no feeds to combine");
    }
    if (ranks.size() == 1) {
      return ranks.get(0);
    }
    KvEventFeed worst = Collections.min(ranks, Comparator.comparingInt(KvEventFeed::rankOfState));
    return new KvEventFeed(
        worst.state(),
        ranks.stream().mapToLong(KvEventFeed::lastSeq).min().orElseThrow(),
        ranks.stream().mapToLong(KvEventFeed::batches).sum(),
        ranks.stream().mapToLong(KvEventFeed::gaps).sum(),
        ranks.stream().mapToLong(KvEventFeed::resets).sum(),
        ranks.stream().mapToLong(KvEventFeed::incompleteReplays).sum(),
        ranks.stream().mapToLong(KvEventFeed::millisSinceLastBatch).max().orElseThrow());
  }

  /** Where {@code state} sits in {@link #STATES}; an unknown state counts as the worst. */
  private int rankOfState() {
    return STATES.indexOf(state);
  }
}
