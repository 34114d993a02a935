package io.kvrouter.protocol.dynamo;

import static io.kvrouter.protocol.dynamo.MsgpackIn.at;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerLoadReport;
import io.kvrouter.protocol.WorkerRank;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.msgpack.value.ValueType;

/**
 * The decoding half of {@link DynamoMsgpackCodec}: reads serde's named msgpack maps field by field
 * in whatever order they come, with the rules that class documents.
 */
final class RouterEventReader {
  private static final Set<String> TIERS = Set.of("device", "host_pinned", "disk", "external");
  private static final long U32_MAX = 0xFFFF_FFFFL;

  private RouterEventReader() {}

  /** One {@code RouterEvent} map or an array of them, and nothing after it. */
  static List<DynamoMsgpackCodec.TieredEvent> payload(MsgpackIn in) {
    List<DynamoMsgpackCodec.TieredEvent> events;
    ValueType type = in.peek("");
    if (type == ValueType.MAP) {
      events = List.of(routerEvent(in, ""));
    } else if (type == ValueType.ARRAY) {
      int n = in.arrayHeader("");
      events = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        events.add(routerEvent(in, "[" + i + "]"));
      }
    } else {
      throw in.fail("", "expected a RouterEvent map or an array of them, got " + name(type));
    }
    in.end("");
    return events;
  }

  private static DynamoMsgpackCodec.TieredEvent routerEvent(MsgpackIn in, String path) {
    int n = in.mapHeader(path);
    MapKeys keys = new MapKeys(in, path, "worker_id", "storage_tier", "residency_domain", "event");
    Long workerId = null;
    String tier = DynamoMsgpackCodec.DEVICE;
    String domain = null;
    Event event = null;
    for (int i = 0; i < n; i++) {
      String key = keys.next();
      switch (key == null ? "" : key) {
        case "worker_id" -> workerId = in.u64(at(path, key));
        case "storage_tier" -> tier = storageTier(in, at(path, key));
        case "residency_domain" -> domain = residencyDomain(in, at(path, key));
        case "event" -> event = kvCacheEvent(in, at(path, key));
        default -> in.skip(path);
      }
    }
    keys.require(workerId, "worker_id");
    keys.require(event, "event");
    RouterEvent routerEvent =
        new RouterEvent(
            new WorkerRank(DynamoEventCodec.workerIdFromU64(workerId), event.dpRank), event.data);
    return new DynamoMsgpackCodec.TieredEvent(
        new DynamoRouterEvent(routerEvent, event.eventId), tier, domain);
  }

  private record Event(long eventId, KvCacheEvent data, int dpRank) {}

  private static Event kvCacheEvent(MsgpackIn in, String path) {
    int n = in.mapHeader(path);
    MapKeys keys = new MapKeys(in, path, "event_id", "data", "dp_rank");
    Long eventId = null;
    KvCacheEvent data = null;
    int dpRank = 0;
    for (int i = 0; i < n; i++) {
      String key = keys.next();
      switch (key == null ? "" : key) {
        case "event_id" -> eventId = in.u64(at(path, key));
        case "data" -> data = data(in, at(path, key));
        case "dp_rank" -> dpRank = in.nil(at(path, key)) ? 0 : in.u31(at(path, key));
        default -> in.skip(path);
      }
    }
    keys.require(eventId, "event_id");
    keys.require(data, "data");
    return new Event(eventId, data, dpRank);
  }

  /** {@code "cleared"}, or a one-entry map {@code {variant: value}}. */
  private static KvCacheEvent data(MsgpackIn in, String path) {
    ValueType type = in.peek(path);
    if (type == ValueType.STRING) {
      String variant = in.string(path);
      if (variant.equals("cleared")) {
        return KvCacheEvent.cleared();
      }
      throw in.fail(
          path,
          "\""
              + variant
              + "\" is not a unit variant, expected \"cleared\" or a"
              + " map {\"stored\": ...} / {\"removed\": ...}");
    }
    if (type != ValueType.MAP) {
      throw in.fail(path, "expected \"cleared\" or a one-entry map, got " + name(type));
    }
    int n = in.mapHeader(path);
    if (n != 1) {
      throw in.fail(path, "expected exactly one variant key (stored, removed, cleared), got " + n);
    }
    String variant = in.key(path);
    String where = at(path, variant == null ? "?" : variant);
    if (variant == null) {
      throw in.fail(path, "the variant key is not a string");
    }
    switch (variant) {
      case "stored":
        return stored(in, where);
      case "removed":
        return removed(in, where);
      case "cleared":
        if (!in.nil(where)) {
          throw in.fail(where, "expected nil, got " + name(in.peek(where)));
        }
        return KvCacheEvent.cleared();
      default:
        throw in.fail(
            path, "unknown variant \"" + variant + "\", expected stored, removed or" + " cleared");
    }
  }

  private static KvCacheEvent.Stored stored(MsgpackIn in, String path) {
    int n = in.mapHeader(path);
    MapKeys keys = new MapKeys(in, path, "parent_hash", "start_position", "blocks");
    Long parent = null;
    List<KvCacheEvent.StoredBlock> blocks = null;
    for (int i = 0; i < n; i++) {
      String key = keys.next();
      switch (key == null ? "" : key) {
        case "parent_hash" -> parent = in.nil(at(path, key)) ? null : in.u64(at(path, key));
        case "start_position" -> {
          String where = at(path, key);
          if (!in.nil(where) && in.u64(where) > U32_MAX) {
            throw in.fail(where, "out of the u32 range");
          }
        }
        case "blocks" -> blocks = blocks(in, at(path, key));
        default -> in.skip(path);
      }
    }
    keys.require(blocks, "blocks");
    return new KvCacheEvent.Stored(parent, blocks);
  }

  private static List<KvCacheEvent.StoredBlock> blocks(MsgpackIn in, String path) {
    int n = in.arrayHeader(path);
    List<KvCacheEvent.StoredBlock> blocks = new ArrayList<>(n);
    for (int b = 0; b < n; b++) {
      String where = path + "[" + b + "]";
      int fields = in.mapHeader(where);
      MapKeys keys = new MapKeys(in, where, "block_hash", "tokens_hash", "mm_extra_info");
      Long blockHash = null;
      Long tokensHash = null;
      for (int i = 0; i < fields; i++) {
        String key = keys.next();
        switch (key == null ? "" : key) {
          case "block_hash" -> blockHash = in.u64(at(where, key));
          case "tokens_hash" -> tokensHash = in.u64(at(where, key));
          case "mm_extra_info" -> {
            // the router's hashes already cover the multimodal objects: read, not kept
            String mm = at(where, key);
            if (!in.nil(mm)) {
              if (in.peek(mm) != ValueType.MAP) {
                throw in.fail(mm, "expected nil or a map, got " + name(in.peek(mm)));
              }
              in.skip(mm);
            }
          }
          default -> in.skip(where);
        }
      }
      keys.require(blockHash, "block_hash");
      keys.require(tokensHash, "tokens_hash");
      blocks.add(new KvCacheEvent.StoredBlock(blockHash, tokensHash));
    }
    return blocks;
  }

  private static KvCacheEvent.Removed removed(MsgpackIn in, String path) {
    int n = in.mapHeader(path);
    MapKeys keys = new MapKeys(in, path, "block_hashes");
    List<Long> hashes = null;
    for (int i = 0; i < n; i++) {
      String key = keys.next();
      if ("block_hashes".equals(key)) {
        String where = at(path, key);
        int count = in.arrayHeader(where);
        hashes = new ArrayList<>(count);
        for (int h = 0; h < count; h++) {
          hashes.add(in.u64(where + "[" + h + "]"));
        }
      } else {
        in.skip(path);
      }
    }
    keys.require(hashes, "block_hashes");
    return new KvCacheEvent.Removed(hashes);
  }

  /** A unit variant: its name as a string, or (older rmp) a one-entry map {@code {name: nil}}. */
  private static String storageTier(MsgpackIn in, String path) {
    String tier;
    if (in.peek(path) == ValueType.MAP) {
      int n = in.mapHeader(path);
      if (n != 1) {
        throw in.fail(path, "expected a tier name or a one-entry map, got a map of " + n);
      }
      tier = in.string(path);
      if (!in.nil(path)) {
        throw in.fail(path, "expected nil as the value of unit variant \"" + tier + "\"");
      }
    } else {
      tier = in.string(path);
    }
    if (!TIERS.contains(tier)) {
      throw in.fail(path, "unknown storage tier \"" + tier + "\", expected one of " + TIERS);
    }
    return tier;
  }

  /**
   * {@code "worker"} or {@code "cache_owner"}. Dynamo's router reads anything else (nil, another
   * string, another type) as unsupported and drops the event: malformed here.
   */
  private static String residencyDomain(MsgpackIn in, String path) {
    if (in.nil(path)) {
      throw in.fail(path, "nil is invalid; only an absent field means a legacy publisher");
    }
    if (in.peek(path) != ValueType.STRING) {
      throw in.fail(path, "expected \"worker\" or \"cache_owner\", got " + name(in.peek(path)));
    }
    String domain = in.string(path);
    if (!domain.equals(DynamoMsgpackCodec.WORKER)
        && !domain.equals(DynamoMsgpackCodec.CACHE_OWNER)) {
      throw in.fail(
          path,
          "unsupported residency domain \""
              + domain
              + "\", expected \"worker\" or \"cache_owner\"");
    }
    return domain;
  }

  // ------------------------------------------------------------------ load

  static WorkerLoadReport activeLoad(MsgpackIn in) {
    int n = in.mapHeader("");
    MapKeys keys =
        new MapKeys(
            in,
            "",
            "worker_id",
            "dp_rank",
            "active_decode_blocks",
            "active_prefill_tokens",
            "kv_used_blocks",
            "num_waiting_reqs",
            "kv_total_blocks",
            "num_requests_waiting",
            "num_requests_running");
    Long workerId = null;
    int dpRank = 0;
    long decode = WorkerLoadReport.UNKNOWN;
    long prefill = WorkerLoadReport.UNKNOWN;
    long used = WorkerLoadReport.UNKNOWN;
    long total = WorkerLoadReport.UNKNOWN;
    long waitingDynamo = WorkerLoadReport.UNKNOWN;
    long waiting = WorkerLoadReport.UNKNOWN;
    long running = WorkerLoadReport.UNKNOWN;
    for (int i = 0; i < n; i++) {
      String key = keys.next();
      switch (key == null ? "" : key) {
        case "worker_id" -> workerId = in.u64(key);
        case "dp_rank" -> dpRank = in.nil(key) ? 0 : in.u31(key);
        case "active_decode_blocks" -> decode = count(in, key);
        case "active_prefill_tokens" -> prefill = count(in, key);
        case "kv_used_blocks" -> used = count(in, key);
        case "num_waiting_reqs" -> waitingDynamo = count(in, key);
        case "kv_total_blocks" -> total = count(in, key);
        case "num_requests_waiting" -> waiting = count(in, key);
        case "num_requests_running" -> running = count(in, key);
        default -> in.skip("");
      }
    }
    keys.require(workerId, "worker_id");
    in.end("");
    return new WorkerLoadReport(
        new WorkerRank(DynamoEventCodec.workerIdFromU64(workerId), dpRank),
        decode,
        prefill,
        used,
        total,
        waitingDynamo != WorkerLoadReport.UNKNOWN ? waitingDynamo : waiting,
        running);
  }

  private static long count(MsgpackIn in, String path) {
    if (in.nil(path)) {
      return WorkerLoadReport.UNKNOWN;
    }
    long value = in.u64(path);
    if (value < 0) {
      throw in.fail(path, Long.toUnsignedString(value) + " is too large for a load count");
    }
    return value;
  }

  // ------------------------------------------------------------------ helpers

  private static String name(ValueType type) {
    return type.name().toLowerCase();
  }
}
