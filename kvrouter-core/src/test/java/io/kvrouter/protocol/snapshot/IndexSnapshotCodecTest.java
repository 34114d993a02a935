package io.kvrouter.protocol.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class IndexSnapshotCodecTest {
  private static final WorkerRank W7 = new WorkerRank("7", 0);
  private static final WorkerRank W7_DP1 = new WorkerRank("7", 1);

  private static byte[] bytes(IndexSnapshot snapshot) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    IndexSnapshotCodec.write(snapshot, out);
    return out.toByteArray();
  }

  private static IndexSnapshot read(byte[] bytes) throws IOException {
    return IndexSnapshotCodec.read(new ByteArrayInputStream(bytes));
  }

  @Test
  void aSmallSnapshot_isTheBytesTheJavadocDraws() throws IOException {
    IndexSnapshot snapshot =
        new IndexSnapshot(
            0x0102,
            List.of(
                new RouterEvent(W7, KvCacheEvent.cleared()),
                new RouterEvent(W7, KvCacheEvent.stored(null, new StoredBlock(5, 6))),
                new RouterEvent(W7, KvCacheEvent.stored(5L, new StoredBlock(8, 9))),
                new RouterEvent(W7, KvCacheEvent.removed(5))),
            Map.of(W7, 42L),
            Map.of(W7, 0x0abcL),
            Map.of("t/0", 17L));

    String hex = HexFormat.of().formatHex(bytes(snapshot));

    assertThat(hex)
        .isEqualTo(
            "4b565253" // KVRS
                + "02" // version
                + "0000000000000102" // created_at_ms
                + "00000001" // one rank
                + "0001"
                + "37" // "7"
                + "00000000" // dp_rank 0
                + "01"
                + "000000000000002a" // last event id 42
                + "01"
                + "0000000000000abc" // publisher 0xabc
                + "00000004" // four events
                + "00000000"
                + "00" // rank 0, Cleared
                + "00000000"
                + "01"
                + "00"
                + "00000001" // Stored, no parent, one block
                + "0000000000000005"
                + "0000000000000006"
                + "00000000"
                + "01"
                + "01"
                + "0000000000000005"
                + "00000001" // parent 5
                + "0000000000000008"
                + "0000000000000009"
                + "00000000"
                + "02"
                + "00000001"
                + "0000000000000005" // Removed [5]
                + "00000001" // one offset
                + "0003"
                + "742f30" // "t/0"
                + "0000000000000011"); // 17
    assertThat(read(HexFormat.of().parseHex(hex))).isEqualTo(snapshot);
  }

  @Test
  void manyRanksAndBlocks_comeBackAsTheyWent() throws IOException {
    SplittableRandom random = new SplittableRandom(9);
    List<RouterEvent> events = new ArrayList<>();
    for (WorkerRank rank : List.of(W7, W7_DP1, new WorkerRank("18446744073709551615", 3))) {
      events.add(new RouterEvent(rank, KvCacheEvent.cleared()));
      Long parent = null;
      for (int i = 0; i < 500; i++) {
        long hash = random.nextLong();
        events.add(
            new RouterEvent(
                rank, KvCacheEvent.stored(parent, new StoredBlock(hash, random.nextLong()))));
        parent = random.nextInt(4) == 0 ? null : hash;
      }
    }
    IndexSnapshot snapshot =
        new IndexSnapshot(
            System.currentTimeMillis(),
            events,
            Map.of(W7, -1L, new WorkerRank("9", 0), 3L), // a u64 above 2^63, a rank without blocks
            Map.of(W7_DP1, 77L, new WorkerRank("10", 0), 1L), // a publisher only
            Map.of("kvrouter.a.kv-events/0", 5L, "kvrouter.a.kv-events/1", 0L));

    IndexSnapshot back = read(bytes(snapshot));

    assertThat(back).isEqualTo(snapshot);
    assertThat(back.blocks()).isEqualTo(1500);
  }

  @Test
  void aSnapshotCutShortOrOfAnotherKind_isRefusedSayingWhy() throws IOException {
    byte[] whole =
        bytes(
            new IndexSnapshot(
                1,
                List.of(new RouterEvent(W7, KvCacheEvent.stored(null, new StoredBlock(1, 2)))),
                Map.of(),
                Map.of(),
                Map.of()));
    for (int cut = 0; cut < whole.length; cut++) {
      byte[] part = java.util.Arrays.copyOf(whole, cut);
      assertThatThrownBy(() -> read(part))
          .as("cut at " + cut)
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> read("JUNKJUNKJUNK".getBytes()))
        .hasMessageContaining("not a kvrouter index snapshot");
    byte[] future = whole.clone();
    future[4] = 3;
    assertThatThrownBy(() -> read(future)).hasMessageContaining("version 3");
    byte[] badRank = whole.clone();
    int firstEventRank = 4 + 1 + 8 + 4 + 2 + 1 + 4 + 1 + 1 + 4; // after the one rank and the count
    badRank[firstEventRank + 3] = 9;
    assertThatThrownBy(() -> read(badRank)).hasMessageContaining("rank 9 is not listed");
  }
}
