package io.kvrouter.protocol.dynamo;

import io.kvrouter.protocol.RouterEvent;
import java.util.Objects;

/**
 * One Dynamo {@code RouterEvent}: the router's event (worker rank and cache change) with the id the
 * publisher stamped on it. Ids count 0, 1, 2, … per worker rank; they are u64 carried in a {@code
 * long} (compare with {@link Long#compareUnsigned}).
 */
public record DynamoRouterEvent(RouterEvent event, long eventId) {
  public DynamoRouterEvent {
    Objects.requireNonNull(event, "event");
  }

  @Override
  public String toString() {
    return "DynamoRouterEvent[" + Long.toUnsignedString(eventId) + ", " + event + "]";
  }
}
