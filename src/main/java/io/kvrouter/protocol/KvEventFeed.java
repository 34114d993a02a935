package io.kvrouter.protocol;

import java.util.Objects;

/**
 * How well the router follows one worker rank's KV cache events: what {@code /router/workers}
 * shows. Routing goes on in every state; the states say how far the index can be trusted.
 *
 * @param state one of:
 *     <ul>
 *       <li>{@value #UNSYNCED}: nothing received from the rank yet;
 *       <li>{@value #REPLAYING}: missed batches are being fetched from the publisher's replay
 *           socket (ZMQ), so the index lags the rank meanwhile;
 *       <li>{@value #RECOVERING}: the rank is being asked for missed events or its whole state
 *           (NATS), so the index lags the rank meanwhile;
 *       <li>{@value #STALE}: the rank cannot be asked (NATS queries keep failing); the index
 *           holds what was known before;
 *       <li>{@value #FOLLOWING}: every event so far applied, in sequence;
 *       <li>{@value #STOPPED}: the subscriber no longer runs (it was closed, or its thread died
 *           on an error); the index holds what was known before and is no longer updated.
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
  public static final String UNSYNCED = "unsynced";
  public static final String REPLAYING = "replaying";
  public static final String RECOVERING = "recovering";
  public static final String STALE = "stale";
  public static final String FOLLOWING = "following";
  public static final String STOPPED = "stopped";

  public KvEventFeed {
    Objects.requireNonNull(state, "state");
  }
}
