package io.kvrouter.protocol.snapshot;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bytes of an {@link IndexSnapshot}: kvrouter's own format (no peer reads it), compact because
 * a snapshot of a million blocks is tens of MiB. Big-endian throughout; {@code str} is a u16 length
 * and that many UTF-8 bytes.
 *
 * <pre>
 *   "KVRS"  u8 version (2)  i64 created_at_ms
 *   u32 ranks    { str worker_id, u32 dp_rank, u8 has_last, [i64 last_event_id],
 *                  u8 has_publisher, [i64 publisher_id] }
 *   u32 events   { u32 rank (index into ranks), u8 kind,
 *                  kind 0 Cleared:
 *                  kind 1 Stored:  u8 has_parent, [i64 parent], u32 n, n × { i64 hash, i64 tokens }
 *                  kind 2 Removed: u32 n, n × i64 hash }
 *   u32 offsets  { str partition, i64 offset }
 * </pre>
 *
 * A snapshot that is cut short, of another version, or whose counts or indexes are out of range is
 * refused with an {@link IllegalArgumentException} that says where.
 */
public final class IndexSnapshotCodec {
  private static final byte[] MAGIC = "KVRS".getBytes(StandardCharsets.US_ASCII);
  private static final int VERSION = 2;

  /** No single event or table holds more: a bound against a corrupt count. */
  private static final int MAX_COUNT = 1 << 28;

  private static final int CLEARED = 0;
  private static final int STORED = 1;
  private static final int REMOVED = 2;

  private IndexSnapshotCodec() {}

  /** A u8 flag, then the value when there is one. */
  private static void optionalLong(DataOutputStream data, Long value) throws IOException {
    data.writeByte(value == null ? 0 : 1);
    if (value != null) {
      data.writeLong(value);
    }
  }

  /** Writes {@code snapshot} to {@code out} (not closed). */
  public static void write(IndexSnapshot snapshot, OutputStream out) throws IOException {
    DataOutputStream data = new DataOutputStream(out);
    data.write(MAGIC);
    data.writeByte(VERSION);
    data.writeLong(snapshot.createdAtMillis());
    Map<WorkerRank, Integer> ranks = new LinkedHashMap<>();
    snapshot.events().forEach(e -> ranks.putIfAbsent(e.worker(), ranks.size()));
    snapshot.lastEventIds().keySet().forEach(r -> ranks.putIfAbsent(r, ranks.size()));
    snapshot.publisherIds().keySet().forEach(r -> ranks.putIfAbsent(r, ranks.size()));
    data.writeInt(ranks.size());
    for (WorkerRank rank : ranks.keySet()) {
      string(data, rank.workerId());
      data.writeInt(rank.dpRank());
      optionalLong(data, snapshot.lastEventIds().get(rank));
      optionalLong(data, snapshot.publisherIds().get(rank));
    }
    data.writeInt(snapshot.events().size());
    for (RouterEvent event : snapshot.events()) {
      data.writeInt(ranks.get(event.worker()));
      writeEvent(data, event.event());
    }
    data.writeInt(snapshot.offsets().size());
    for (Map.Entry<String, Long> offset : snapshot.offsets().entrySet()) {
      string(data, offset.getKey());
      data.writeLong(offset.getValue());
    }
    data.flush();
  }

  private static void writeEvent(DataOutputStream data, KvCacheEvent event) throws IOException {
    if (event instanceof KvCacheEvent.Stored stored) {
      data.writeByte(STORED);
      data.writeByte(stored.parentBlockHash() == null ? 0 : 1);
      if (stored.parentBlockHash() != null) {
        data.writeLong(stored.parentBlockHash());
      }
      data.writeInt(stored.blocks().size());
      for (StoredBlock block : stored.blocks()) {
        data.writeLong(block.blockHash());
        data.writeLong(block.tokensHash());
      }
    } else if (event instanceof KvCacheEvent.Removed removed) {
      data.writeByte(REMOVED);
      data.writeInt(removed.blockHashes().size());
      for (long hash : removed.blockHashes()) {
        data.writeLong(hash);
      }
    } else {
      data.writeByte(CLEARED);
    }
  }

  /** Reads one snapshot from {@code in} (not closed). */
  public static IndexSnapshot read(InputStream in) throws IOException {
    DataInputStream data = new DataInputStream(in);
    try {
      byte[] magic = new byte[MAGIC.length];
      data.readFully(magic);
      if (!java.util.Arrays.equals(magic, MAGIC)) {
        throw new IllegalArgumentException("not a kvrouter index snapshot (no KVRS mark)");
      }
      int version = data.readUnsignedByte();
      if (version != VERSION) {
        throw new IllegalArgumentException(
            "index snapshot version " + version + ", this router reads " + VERSION);
      }
      long createdAt = data.readLong();
      List<WorkerRank> ranks = new ArrayList<>();
      Map<WorkerRank, Long> lastEventIds = new HashMap<>();
      Map<WorkerRank, Long> publisherIds = new HashMap<>();
      int rankCount = count(data, "ranks");
      for (int i = 0; i < rankCount; i++) {
        String workerId = string(data);
        int dpRank = data.readInt();
        if (dpRank < 0) {
          throw new IllegalArgumentException("rank " + i + ": dp_rank " + dpRank);
        }
        WorkerRank rank = new WorkerRank(workerId, dpRank);
        ranks.add(rank);
        if (data.readUnsignedByte() != 0) {
          lastEventIds.put(rank, data.readLong());
        }
        if (data.readUnsignedByte() != 0) {
          publisherIds.put(rank, data.readLong());
        }
      }
      int eventCount = count(data, "events");
      List<RouterEvent> events = new ArrayList<>(Math.min(eventCount, 1 << 20));
      for (int i = 0; i < eventCount; i++) {
        int rank = data.readInt();
        if (rank < 0 || rank >= ranks.size()) {
          throw new IllegalArgumentException("event " + i + ": rank " + rank + " is not listed");
        }
        events.add(new RouterEvent(ranks.get(rank), readEvent(data, i)));
      }
      Map<String, Long> offsets = new HashMap<>();
      int offsetCount = count(data, "offsets");
      for (int i = 0; i < offsetCount; i++) {
        offsets.put(string(data), data.readLong());
      }
      return new IndexSnapshot(createdAt, events, lastEventIds, publisherIds, offsets);
    } catch (EOFException e) {
      throw new IllegalArgumentException("index snapshot cut short", e);
    }
  }

  private static KvCacheEvent readEvent(DataInputStream data, int index) throws IOException {
    int kind = data.readUnsignedByte();
    switch (kind) {
      case CLEARED:
        return KvCacheEvent.cleared();
      case STORED:
        Long parent = data.readUnsignedByte() != 0 ? data.readLong() : null;
        int n = count(data, "event " + index + " blocks");
        List<StoredBlock> blocks = new ArrayList<>(Math.min(n, 1 << 16));
        for (int b = 0; b < n; b++) {
          blocks.add(new StoredBlock(data.readLong(), data.readLong()));
        }
        return new KvCacheEvent.Stored(parent, blocks);
      case REMOVED:
        int removed = count(data, "event " + index + " hashes");
        List<Long> hashes = new ArrayList<>(Math.min(removed, 1 << 16));
        for (int b = 0; b < removed; b++) {
          hashes.add(data.readLong());
        }
        return new KvCacheEvent.Removed(hashes);
      default:
        throw new IllegalArgumentException("event " + index + ": unknown kind " + kind);
    }
  }

  private static int count(DataInputStream data, String what) throws IOException {
    int count = data.readInt();
    if (count < 0 || count > MAX_COUNT) {
      throw new IllegalArgumentException(what + ": count " + Integer.toUnsignedString(count));
    }
    return count;
  }

  private static void string(DataOutputStream data, String value) throws IOException {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > 0xFFFF) {
      throw new IllegalArgumentException("a name of " + bytes.length + " bytes");
    }
    data.writeShort(bytes.length);
    data.write(bytes);
  }

  private static String string(DataInputStream data) throws IOException {
    byte[] bytes = new byte[data.readUnsignedShort()];
    data.readFully(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
