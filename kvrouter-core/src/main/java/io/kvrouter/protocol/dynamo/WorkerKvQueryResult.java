package io.kvrouter.protocol.dynamo;

import java.util.List;
import java.util.Objects;

/**
 * A worker's answer to the router's recovery query "events {@code start..end}" (Dynamo's {@code
 * LocalKvIndexer::get_events_in_id_range}, answered on the worker's {@code
 * worker_kv_indexer_query_dp{rank}} endpoint; {@code docs/interop.md} §3). Event ids are u64 in a
 * {@code long}; ranges are inclusive at both ends.
 *
 * <pre>
 *   end &lt; start                        → InvalidRange(start, end)
 *   start absent                       → TreeDump(events, last_event_id = newest, 0 if none yet)
 *   no event buffered yet              → TreeDump(events, last_event_id = 0)
 *   start &gt; newest                     → TooNew(start, end, newest)
 *   start &lt; oldest buffered            → TreeDump(events, last_event_id = newest)
 *   otherwise                          → Events(start .. min(end, newest))
 * </pre>
 */
public sealed interface WorkerKvQueryResult
    permits WorkerKvQueryResult.Events,
        WorkerKvQueryResult.TreeDump,
        WorkerKvQueryResult.TooNew,
        WorkerKvQueryResult.InvalidRange,
        WorkerKvQueryResult.Error {

  /** The asked-for events, consecutive ids, oldest first. */
  record Events(List<DynamoRouterEvent> events) implements WorkerKvQueryResult {
    public Events {
      events = List.copyOf(Objects.requireNonNull(events, "events"));
    }
  }

  /**
   * The worker's whole state instead: applying {@code events} in order to a router (they start with
   * a {@code Cleared} of the rank) leaves it holding exactly what the worker held after event
   * {@code lastEventId}; the router continues with event {@code lastEventId + 1}. The dump's own
   * events are numbered 0, 1, 2, … as Dynamo's tree dump numbers them; those ids are not stream
   * ids.
   *
   * <p>Two exceptions, kept from Dynamo: before the worker has published any event {@code
   * lastEventId} is 0 although no event 0 happened yet, so 0 may mean "no event yet" as well as
   * "event 0" and a router must take a following event 0 as new; and an older worker's dump does
   * not say it at all ({@code lastEventId} null).
   */
  record TreeDump(List<DynamoRouterEvent> events, Long lastEventId) implements WorkerKvQueryResult {
    public TreeDump {
      events = List.copyOf(Objects.requireNonNull(events, "events"));
    }
  }

  /** {@code requestedStart} is after the newest event; {@code requestedEnd} may be null. */
  record TooNew(long requestedStart, Long requestedEnd, long newestAvailable)
      implements WorkerKvQueryResult {}

  /** {@code endId < startId}. */
  record InvalidRange(long startId, long endId) implements WorkerKvQueryResult {}

  /** The worker could not answer; {@code message} says why. */
  record Error(String message) implements WorkerKvQueryResult {
    public Error {
      Objects.requireNonNull(message, "message");
    }
  }
}
