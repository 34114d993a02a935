package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.common.Ticker;
import io.kvrouter.events.DynamoEventFollower;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult;
import io.kvrouter.protocol.snapshot.IndexSnapshot;
import io.kvrouter.protocol.snapshot.IndexSnapshotCodec;
import io.kvrouter.routing.index.KvIndexer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A router's index and positions, taken as a snapshot, written, read back and restored into a new
 * router's index: the new index holds what the old one did, and each rank asks its worker only for
 * the events after its position.
 */
class IndexSnapshotsTest {
  private static final WorkerRank W7 = new WorkerRank("7", 0);
  private static final WorkerRank W8 = new WorkerRank("8", 0);

  private final List<String> asked = new CopyOnWriteArrayList<>();

  private DynamoEventFollower follower(KvIndexer index) {
    return new DynamoEventFollower(
        index,
        (rank, publisher, start, end) -> {
          asked.add(rank.workerId() + " " + start + "..");
          return CompletableFuture.completedFuture(
              new WorkerKvQueryResult.TooNew(start, null, start - 1)); // nothing newer
        },
        false,
        Duration.ofHours(1),
        new SimpleMeterRegistry(),
        Ticker.SYSTEM);
  }

  /** Event {@code id} of {@code rank}: a block chained under the previous one (none for 0). */
  private static byte[] stored(WorkerRank rank, long id) {
    long base = Long.parseLong(rank.workerId()) * 1000;
    return DynamoMsgpackCodec.encodeBatch(
        List.of(
            new DynamoRouterEvent(
                new RouterEvent(
                    rank,
                    KvCacheEvent.stored(
                        id == 0 ? null : base + id - 1, new StoredBlock(base + id, base + id))),
                id)));
  }

  @Test
  void aSnapshotTakenFromOneRouter_startsAnotherWhereTheFirstWas() throws Exception {
    IndexSnapshot snapshot;
    List<RouterEvent> before;
    try (KvIndexer index = KvIndexer.inline();
        DynamoEventFollower follower = follower(index)) {
      for (long id = 0; id <= 5; id++) {
        follower.onMsgpack(stored(W7, id));
      }
      for (long id = 0; id <= 2; id++) {
        follower.onMsgpack(stored(W8, id));
      }
      snapshot =
          IndexSnapshots.take(follower, index::dump)
              .toCompletableFuture()
              .get(10, TimeUnit.SECONDS);
      before = index.dump().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    assertThat(snapshot.lastEventIds()).isEqualTo(Map.of(W7, 5L, W8, 2L));
    assertThat(snapshot.blocks()).isEqualTo(9);

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    IndexSnapshotCodec.write(snapshot, bytes);
    IndexSnapshot read = IndexSnapshotCodec.read(new ByteArrayInputStream(bytes.toByteArray()));

    try (KvIndexer index = KvIndexer.inline();
        DynamoEventFollower follower = follower(index)) {
      IndexSnapshots.restore(read, follower);
      follower.catchUp(W7);
      follower.catchUp(W8);
      follower.onMsgpack(stored(W7, 6)); // the next live event follows on, no tree dump

      // event 6 may come while the question about the tail is out: it waits for the answer
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(follower.positions().get(10, TimeUnit.SECONDS).lastEventIds())
                      .isEqualTo(Map.of(W7, 6L, W8, 2L)));
      assertThat(asked).containsExactlyInAnyOrder("7 6..", "8 3..");
      List<RouterEvent> after = index.dump().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(after).containsAll(before);
      assertThat(after).hasSize(before.size() + 1);
    }
  }

  @Test
  void aSnapshotTakenBeforeTheRestoredRanksCaughtUp_stillHoldsTheirState() throws Exception {
    IndexSnapshot first;
    try (KvIndexer index = KvIndexer.inline();
        DynamoEventFollower follower = follower(index)) {
      for (long id = 0; id <= 3; id++) {
        follower.onMsgpack(stored(W7, id));
      }
      first =
          IndexSnapshots.take(follower, index::dump)
              .toCompletableFuture()
              .get(10, TimeUnit.SECONDS);
    }
    try (KvIndexer index = KvIndexer.inline();
        DynamoEventFollower follower = follower(index)) {
      IndexSnapshots.restore(first, follower); // its worker has not joined: nothing in the index
      IndexSnapshot second =
          IndexSnapshots.take(follower, index::dump)
              .toCompletableFuture()
              .get(10, TimeUnit.SECONDS);

      assertThat(index.dump().toCompletableFuture().get(10, TimeUnit.SECONDS)).isEmpty();
      assertThat(second.lastEventIds()).isEqualTo(first.lastEventIds());
      assertThat(second.events()).containsExactlyElementsOf(first.events());
    }
  }
}
