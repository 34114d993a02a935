package io.kvrouter.protocol.snapshot;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a router knew of its workers' KV caches at one moment, for a router that starts later to
 * begin from: the index as the events that rebuild it (a dump: per rank {@code Cleared}, then its
 * blocks), the last event id applied per rank, and, on a durable event log, the position reached in
 * each partition.
 *
 * @param createdAtMillis when it was taken, in milliseconds since the epoch
 * @param events the events that rebuild the index, in order
 * @param lastEventIds per rank, the id of the last Dynamo event applied (ranks whose position is
 *     unknown are absent)
 * @param publisherIds per rank, the id of the event publisher whose envelope last carried its
 *     events (Dynamo v1.5 names the rank's recovery endpoint after it); absent where none was seen
 * @param offsets per partition of the event log ({@code topic/partition}), the offset of the next
 *     record to read; empty when the events do not come from a log
 */
public record IndexSnapshot(
    long createdAtMillis,
    List<RouterEvent> events,
    Map<WorkerRank, Long> lastEventIds,
    Map<WorkerRank, Long> publisherIds,
    Map<String, Long> offsets) {

  public IndexSnapshot {
    events = List.copyOf(events);
    lastEventIds = Map.copyOf(lastEventIds);
    publisherIds = Map.copyOf(publisherIds);
    offsets = Map.copyOf(offsets);
  }

  /** The blocks the snapshot stores, over every rank. */
  public long blocks() {
    return events.stream()
        .map(RouterEvent::event)
        .filter(e -> e instanceof KvCacheEvent.Stored)
        .mapToLong(e -> ((KvCacheEvent.Stored) e).blocks().size())
        .sum();
  }

  /** The partition key of {@link #offsets}. */
  public static String partition(String topic, int partition) {
    return Objects.requireNonNull(topic, "topic") + "/" + partition;
  }
}
