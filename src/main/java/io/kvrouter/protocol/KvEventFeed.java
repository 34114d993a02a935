package io.kvrouter.protocol;

import java.util.Objects;

/**
 * How well the router follows one worker's KV cache events: what {@code /router/workers} shows.
 *
 * @param state {@code unsynced} (nothing received yet), {@code replaying} (catching up on missed
 *     batches; the index lags the worker meanwhile) or {@code following} (in sequence)
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
  public KvEventFeed {
    Objects.requireNonNull(state, "state");
  }
}
