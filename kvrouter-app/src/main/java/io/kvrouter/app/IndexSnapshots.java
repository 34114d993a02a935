package io.kvrouter.app;

import io.kvrouter.events.DynamoEventFollower;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.snapshot.IndexSnapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Index snapshots of a model whose workers' Dynamo events a {@link DynamoEventFollower} applies:
 * taking one from a running router, and starting a router from one ({@code
 * docs/notes/index-snapshots.md}). Not wired to a flag yet.
 *
 * <p>Why the order of {@link #take} is safe: the positions are read on the follower's thread, after
 * every event handed to it before, so each of those events has reached the index's queues; the dump
 * is queued behind them. The index may hold more than the positions say (events applied between the
 * two reads), never less, and a router started from it asks for the events after each position, of
 * which it may apply some a second time: applying a store or a removal again leaves the index as it
 * was.
 */
final class IndexSnapshots {
  private IndexSnapshots() {}

  /**
   * A snapshot of what the router holds now.
   *
   * @param dump the router's index dump ({@code Router.dumpKvIndex})
   */
  static CompletionStage<IndexSnapshot> take(
      DynamoEventFollower follower, Supplier<CompletionStage<List<RouterEvent>>> dump) {
    return follower
        .positions()
        .thenCompose(
            positions ->
                dump.get()
                    .thenApply(
                        events ->
                            new IndexSnapshot(
                                System.currentTimeMillis(),
                                withWaitingStates(events, positions.waitingStates()),
                                positions.lastEventIds(),
                                positions.publisherIds(),
                                positions.logOffsets())));
  }

  /**
   * The index's dump with the states of the ranks a snapshot restored whose workers have not been
   * followed yet: those are in no index, and a snapshot that left them out would still hold their
   * positions.
   */
  private static List<RouterEvent> withWaitingStates(
      List<RouterEvent> dump, Map<WorkerRank, List<KvCacheEvent>> waiting) {
    if (waiting.isEmpty()) {
      return dump;
    }
    List<RouterEvent> events = new ArrayList<>(dump);
    waiting.forEach(
        (rank, state) -> state.forEach(event -> events.add(new RouterEvent(rank, event))));
    return events;
  }

  /**
   * Starts {@code follower} from {@code snapshot}: each rank it holds a position for waits for its
   * worker with the snapshot's state ({@link DynamoEventFollower#restore}), which {@link
   * DynamoEventFollower#catchUp} puts into the index before asking for what came after. Called
   * before the follower hears any live event; ranks the snapshot has no position for are left to
   * the usual start.
   */
  static void restore(IndexSnapshot snapshot, DynamoEventFollower follower) {
    Map<WorkerRank, List<KvCacheEvent>> states = new HashMap<>();
    for (RouterEvent event : snapshot.events()) {
      states.computeIfAbsent(event.worker(), rank -> new ArrayList<>()).add(event.event());
    }
    snapshot
        .lastEventIds()
        .forEach(
            (rank, last) ->
                follower.restore(
                    rank,
                    last,
                    snapshot.publisherIds().get(rank),
                    states.getOrDefault(rank, List.of())));
  }
}
