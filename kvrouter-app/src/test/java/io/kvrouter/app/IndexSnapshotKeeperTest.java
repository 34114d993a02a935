package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.IndexSnapshotConfig;
import io.kvrouter.events.DynamoEventFollower;
import io.kvrouter.events.IndexSnapshotStore;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.snapshot.IndexSnapshot;
import io.kvrouter.routing.index.KvIndexer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The keeper's rules, against an in-memory {@link IndexSnapshotStore} (the port; the real stores
 * are checked in {@code NatsSnapshotStoreIT} and {@code KafkaSnapshotStoreIT}): it writes only
 * while it holds the lock and the index has taken the threshold's events since the last snapshot;
 * at start it loads, or deletes with {@code --router-reset-states}; a store that fails is counted
 * and the router starts without.
 */
class IndexSnapshotKeeperTest {
  private static final String NAME = "dynamo.backend.generate/model";
  private static final WorkerRank RANK = new WorkerRank("7", 0);

  /** Snapshots by name, and who holds each lock; fails every call while {@code broken}. */
  private static final class MemoryStore implements IndexSnapshotStore {
    final Map<String, IndexSnapshot> snapshots = new HashMap<>();
    final Map<String, String> locks = new HashMap<>();
    boolean broken;
    int saves;

    private void check() throws IOException {
      if (broken) {
        throw new IOException("the store is down");
      }
    }

    @Override
    public Optional<IndexSnapshot> load(String name) throws IOException {
      check();
      return Optional.ofNullable(snapshots.get(name));
    }

    @Override
    public long save(String name, IndexSnapshot snapshot) throws IOException {
      check();
      saves++;
      snapshots.put(name, snapshot);
      return snapshot.blocks();
    }

    @Override
    public void delete(String name) throws IOException {
      check();
      snapshots.remove(name);
    }

    @Override
    public boolean lock(String name, String owner) throws IOException {
      check();
      return locks.putIfAbsent(name, owner) == null || locks.get(name).equals(owner);
    }

    @Override
    public void close() {}
  }

  private final MemoryStore store = new MemoryStore();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  private IndexSnapshotKeeper keeper(int threshold, boolean reset) {
    return new IndexSnapshotKeeper(
        new IndexSnapshotConfig(true, threshold, reset), NAME, () -> store, meters);
  }

  private double outcome(String outcome) {
    return meters
        .get(MetricNames.INDEX_SNAPSHOTS)
        .tag(MetricNames.TAG_OUTCOME, outcome)
        .counter()
        .count();
  }

  private static DynamoEventFollower follower(KvIndexer index) {
    return new DynamoEventFollower(
        index,
        (rank, publisher, start, end) -> CompletableFuture.failedFuture(new IOException("none")),
        false,
        Duration.ofHours(1),
        new SimpleMeterRegistry(),
        Ticker.SYSTEM);
  }

  /** Hands event {@code id} to the follower and waits until it has been applied. */
  private static void publish(DynamoEventFollower follower, long id) throws Exception {
    follower.onMsgpack(
        DynamoMsgpackCodec.encodeBatch(
            List.of(
                new DynamoRouterEvent(
                    new RouterEvent(
                        RANK,
                        KvCacheEvent.stored(id == 0 ? null : id - 1, new StoredBlock(id, id))),
                    id))));
    follower.positions().get(10, TimeUnit.SECONDS); // runs after the event
  }

  @Test
  void writesOnlyWhileHoldingTheLock_andOnceTheThresholdIsPassed() throws Exception {
    try (KvIndexer index = KvIndexer.inline();
        DynamoEventFollower follower = follower(index);
        IndexSnapshotKeeper keeper = keeper(3, false)) {
      assertThat(keeper.load()).isEmpty();
      publish(follower, 0);
      publish(follower, 1); // a clear and two stores: three events applied
      store.locks.put(NAME, "another router");
      keeper.check(follower, index::dump);
      assertThat(store.saves).as("another router holds the lock").isZero();

      store.locks.clear();
      keeper.check(follower, index::dump);
      assertThat(store.saves).isEqualTo(1);
      assertThat(store.snapshots.get(NAME).lastEventIds()).isEqualTo(Map.of(RANK, 1L));
      assertThat(store.snapshots.get(NAME).blocks()).isEqualTo(2);

      publish(follower, 2);
      keeper.check(follower, index::dump);
      assertThat(store.saves).as("one event since: below the threshold").isEqualTo(1);
      publish(follower, 3);
      publish(follower, 4);
      keeper.check(follower, index::dump);
      assertThat(store.saves).isEqualTo(2);
      assertThat(store.snapshots.get(NAME).lastEventIds()).isEqualTo(Map.of(RANK, 4L));
      assertThat(outcome("written")).isEqualTo(2);
    }
  }

  @Test
  void atStart_loadsTheSnapshot_orDeletesItOnReset() {
    IndexSnapshot snapshot = new IndexSnapshot(1, List.of(), Map.of(RANK, 5L), Map.of(), Map.of());
    store.snapshots.put(NAME, snapshot);
    try (IndexSnapshotKeeper keeper = keeper(1, false)) {
      assertThat(keeper.load()).contains(snapshot);
      assertThat(outcome("restored")).isEqualTo(1);
    }
    try (IndexSnapshotKeeper keeper = keeper(1, true)) {
      assertThat(keeper.load()).isEmpty();
      assertThat(store.snapshots).isEmpty();
    }
  }

  @Test
  void aStoreThatFails_isCounted_andTheRouterStartsWithout() throws Exception {
    store.broken = true;
    try (KvIndexer index = KvIndexer.inline();
        DynamoEventFollower follower = follower(index);
        IndexSnapshotKeeper keeper = keeper(1, false)) {
      assertThat(keeper.load()).isEmpty();
      publish(follower, 0);
      keeper.check(follower, index::dump);
      assertThat(outcome("failed")).isEqualTo(2);

      store.broken = false; // back: the next round writes
      keeper.check(follower, index::dump);
      assertThat(store.saves).isEqualTo(1);
    }
  }
}
