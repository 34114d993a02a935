package io.kvrouter.protocol.dynamo;

import java.util.List;
import java.util.Objects;

/**
 * Dynamo's {@code KvCacheEvents} batch: {@code {"events":[KvCacheEvent, ...],"shutdown":bool}}.
 * {@code shutdown} true tells the consumer the publisher is going away.
 */
public record DynamoKvCacheEvents(List<DynamoKvCacheEvent> events, boolean shutdown) {
  public DynamoKvCacheEvents {
    events = List.copyOf(Objects.requireNonNull(events, "events"));
  }
}
