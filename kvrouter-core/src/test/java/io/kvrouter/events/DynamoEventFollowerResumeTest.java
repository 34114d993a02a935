package io.kvrouter.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.common.Ticker;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvEventFeed;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The follower's side of snapshots: the positions it reports are those of the events it was handed
 * before, and a rank resumed from a position asks its worker only for what came after.
 */
class DynamoEventFollowerResumeTest {
  private static final WorkerRank RANK = new WorkerRank("7", 0);

  private final List<String> asked = new CopyOnWriteArrayList<>();
  private final List<KvCacheEvent> applied = new CopyOnWriteArrayList<>();

  private DynamoEventFollower follower(WorkerKvQueryResult answer) {
    return new DynamoEventFollower(
        (rank, event) -> applied.add(event),
        (rank, publisher, start, end) -> {
          asked.add(rank + " " + start + ".." + end);
          return CompletableFuture.completedFuture(answer);
        },
        false,
        Duration.ofHours(1),
        new SimpleMeterRegistry(),
        Ticker.SYSTEM);
  }

  private static byte[] event(long id) {
    return DynamoMsgpackCodec.encodeBatch(
        List.of(new DynamoRouterEvent(new RouterEvent(RANK, KvCacheEvent.removed(id)), id)));
  }

  @Test
  void positions_areThoseOfTheEventsHandedOverBefore() throws Exception {
    try (DynamoEventFollower follower = follower(null)) {
      assertThat(follower.positions().get(10, TimeUnit.SECONDS).lastEventIds()).isEmpty();
      follower.onMsgpack(event(0));
      follower.onMsgpack(event(1));
      follower.onMsgpack(event(2));

      assertThat(follower.positions().get(10, TimeUnit.SECONDS).lastEventIds())
          .isEqualTo(Map.of(RANK, 2L));
      assertThat(applied).hasSize(4); // a clear at event 0, then the three
    }
  }

  @Test
  void aRestoredRank_waitsForItsWorker_thenPutsItsStateBeforeTheLiveEvents() throws Exception {
    try (DynamoEventFollower follower =
        follower(new WorkerKvQueryResult.TooNew(7, null, 6))) { // nothing newer than 6
      follower.restore(RANK, 5, null, List.of(KvCacheEvent.cleared(), KvCacheEvent.removed(1)));
      follower.onMsgpack(event(6));
      follower.sync().get(10, TimeUnit.SECONDS);
      assertThat(applied).as("the worker is not followed yet").isEmpty();
      assertThat(asked).isEmpty();

      follower.catchUp(RANK);

      assertThat(follower.positions().get(10, TimeUnit.SECONDS).lastEventIds())
          .isEqualTo(Map.of(RANK, 6L));
      assertThat(applied)
          .containsExactly(
              KvCacheEvent.cleared(), KvCacheEvent.removed(1), KvCacheEvent.removed(6));
      assertThat(asked).containsExactly(RANK + " 7..null");
    }
  }

  @Test
  void logOffsets_areThoseOfTheRecordsHandedOver_malformedOnesIncluded() throws Exception {
    try (DynamoEventFollower follower = follower(null)) {
      follower.onMsgpack(event(0), "events/0", 11);
      follower.onMsgpack(event(1), "events/1", 4);
      follower.onMsgpack(new byte[] {(byte) 0xc1}, "events/0", 12); // not msgpack

      DynamoEventFollower.Positions positions = follower.positions().get(10, TimeUnit.SECONDS);
      assertThat(positions.logOffsets()).isEqualTo(Map.of("events/0", 12L, "events/1", 4L));
      assertThat(positions.lastEventIds()).isEqualTo(Map.of(RANK, 1L));
      assertThat(follower.appliedEvents()).isEqualTo(3); // a clear at event 0, then the two
    }
  }

  @Test
  void aRankWhoseWorkerDoesNotAnswer_hasNoPositionToSnapshot() throws Exception {
    try (DynamoEventFollower follower =
        new DynamoEventFollower(
            (rank, event) -> applied.add(event),
            (rank, publisher, start, end) ->
                CompletableFuture.failedFuture(new IllegalStateException("no answer")),
            false,
            Duration.ofHours(1),
            new SimpleMeterRegistry(),
            Ticker.SYSTEM)) {
      follower.onMsgpack(event(0));
      follower.onMsgpack(event(1));
      follower.onMsgpack(event(3)); // a gap, asked about, never answered: applied as they come
      // after three failed questions the held event is applied anyway
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(applied).contains(KvCacheEvent.removed(3)));
      assertThat(follower.feed(RANK).state()).isEqualTo(KvEventFeed.STALE);
      assertThat(follower.positions().get(10, TimeUnit.SECONDS).lastEventIds()).isEmpty();
    }
  }
}
