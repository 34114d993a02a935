package io.kvrouter.testing;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.snapshot.IndexSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/** Index snapshots of made-up blocks, for the snapshot stores' tests. */
public final class SyntheticSnapshots {
  /** The rank every block of these snapshots is on. */
  public static final WorkerRank RANK = new WorkerRank("7", 0);

  private SyntheticSnapshots() {}

  /** A snapshot of {@code blocks} random blocks of {@link #RANK}, in chains of 64. */
  public static IndexSnapshot of(int blocks, long lastEventId) {
    SplittableRandom random = new SplittableRandom(blocks);
    List<RouterEvent> events =
        new ArrayList<>(List.of(new RouterEvent(RANK, KvCacheEvent.cleared())));
    Long parent = null;
    for (int i = 0; i < blocks; i++) {
      long hash = random.nextLong();
      events.add(
          new RouterEvent(
              RANK, KvCacheEvent.stored(parent, new StoredBlock(hash, random.nextLong()))));
      parent = i % 64 == 63 ? null : hash;
    }
    return new IndexSnapshot(
        System.currentTimeMillis(),
        events,
        Map.of(RANK, lastEventId),
        Map.of(RANK, 0x5eedL),
        Map.of("t/0", 12L));
  }
}
