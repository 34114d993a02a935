package io.kvrouter.protocol.dynamo;

import io.kvrouter.protocol.KvCacheEvent;
import java.util.Objects;

/**
 * Dynamo's {@code KvCacheEvent}, the event of a {@code RouterEvent} without the worker id: what a
 * {@link DynamoKvCacheEvents} batch holds.
 *
 * @param eventId u64 in a {@code long}
 * @param data the cache change
 * @param dpRank the data-parallel rank (u32 on the wire; at most {@link Integer#MAX_VALUE} here)
 */
public record DynamoKvCacheEvent(long eventId, KvCacheEvent data, int dpRank) {
  public DynamoKvCacheEvent {
    Objects.requireNonNull(data, "data");
    if (dpRank < 0) {
      throw new IllegalArgumentException("dpRank must be >= 0: " + dpRank);
    }
  }
}
