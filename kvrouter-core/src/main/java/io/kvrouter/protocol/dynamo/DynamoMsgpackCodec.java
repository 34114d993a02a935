package io.kvrouter.protocol.dynamo;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerLoadReport;
import io.kvrouter.protocol.WorkerRank;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import org.msgpack.core.MessagePacker;

/**
 * Dynamo's KV events and load reports as they travel on its ZMQ event plane ("E3", {@code
 * docs/notes/dynamo-e3-event-plane.md} §2 and §6): msgpack written by {@code
 * rmp_serde::to_vec_named}, so every struct is a map keyed by field name and every enum is
 * externally tagged by variant name. This is the payload inside an {@link EventEnvelope} ({@link
 * EventEnvelopeCodec}); the JSON form of the same types is {@link DynamoEventCodec}.
 *
 * <h2>KV event payload (topic {@value #KV_EVENTS_TOPIC})</h2>
 *
 * <pre>
 * payload   = RouterEvent                  first E3 builds (S1): one event per message
 *           | [ RouterEvent, ... ]         later builds (S2, S3): a batch, msgpack array
 *
 * RouterEvent = map {
 *   "worker_id":        u64
 *   "storage_tier":     "device" | "host_pinned" | "disk" | "external"   absent: device
 *   "residency_domain": "worker" | "cache_owner"     S3 only; absent: legacy; nil: invalid
 *   "event": map {
 *       "event_id": u64
 *       "data":     DATA
 *       "dp_rank":  u32                                                   absent: 0
 *   }
 *   ... later builds add "state_source", "session_id": ignored
 * }
 *
 * DATA = map { "stored": map {
 *                 "parent_hash":    u64 | nil          nil or absent: the sequence starts here
 *                 "start_position": u32 | nil          newer builds only
 *                 "blocks": [ map { "block_hash":    u64,         engine sequence hash
 *                                   "tokens_hash":   u64,         router local block hash
 *                                   "mm_extra_info": nil | map }, ... ] } }
 *      | map { "removed": map { "block_hashes": [ u64, ... ] } }
 *      | "cleared"                                     ({"cleared": nil} is read too)
 * </pre>
 *
 * A u64 is any msgpack integer form holding a value in [0, 2<sup>64</sup>); rmp writes the smallest
 * one, so a hash of 2<sup>63</sup> or more is a {@code cf} uint64. It is carried bit for bit in a
 * {@code long}. The two hashes of a stored block map as in {@link DynamoEventCodec}: {@code
 * block_hash} → {@link KvCacheEvent.StoredBlock#blockHash()}, {@code tokens_hash} → {@link
 * KvCacheEvent.StoredBlock#tokensHash()}; the worker id becomes its unsigned decimal string.
 *
 * <h2>Load payload (topic {@value #KV_METRICS_TOPIC}, Dynamo's {@code ActiveLoad})</h2>
 *
 * <pre>
 * map { "worker_id": u64, "dp_rank": u32,
 *       "active_decode_blocks": u64 | nil, "active_prefill_tokens": u64 | nil,
 *       "kv_used_blocks": u64 | nil,
 *       "num_waiting_reqs": u64 | nil,                     some builds; read only
 *       "kv_total_blocks": u64 | nil, "num_requests_waiting": u64 | nil,
 *       "num_requests_running": u64 | nil }                ours, written after Dynamo's fields
 * </pre>
 *
 * mapped to {@link WorkerLoadReport} as {@link WorkerLoadCodec} maps the JSON form: nil or absent
 * counts are {@link WorkerLoadReport#UNKNOWN}; {@code num_waiting_reqs}, when present, is the
 * waiting count.
 *
 * <h2>Encoding</h2>
 *
 * Byte for byte what rmp_serde writes: fields in the declared order above, {@code storage_tier}
 * always {@code "device"}, {@code parent_hash}, {@code start_position} and {@code mm_extra_info}
 * written as nil when absent (serde does not skip them), {@code "cleared"} as a plain string.
 * {@link FieldSet#CURRENT} (the default) adds {@code "residency_domain": "worker"} after the tier,
 * as the latest Dynamo builds always do; {@link FieldSet#LEGACY} leaves it out. Older consumers
 * ignore the key, but an S1 consumer reads a single event, not a batch: pick {@link
 * #encode(DynamoRouterEvent)} or {@link #encodeBatch(List)} to match the deployed build.
 *
 * <h2>Decoding</h2>
 *
 * As serde reads it: keys in any order, unknown keys (and non-string keys) skipped, every field
 * above that is not marked optional required. Strict where serde is strict: a known key twice, a
 * value of the wrong type, a u64 out of range, an unknown tier or data variant, a {@code dp_rank}
 * of 2<sup>31</sup> or more (the router's {@link WorkerRank} is an {@code int}), truncated input,
 * trailing bytes. Stricter in one place, as Dynamo's router is when it applies the event: a {@code
 * residency_domain} that is present but not one of the two names (nil included) makes the payload
 * malformed. Each failure is a {@link DynamoEventFormatException} whose message starts with the
 * path, e.g. {@code "[1].event.data.stored.blocks[0].tokens_hash: expected an unsigned 64-bit
 * integer, got string (at byte 97)"}.
 *
 * <p>Thread-safe and stateless.
 */
public final class DynamoMsgpackCodec {
  /** Dynamo's topic for KV events ({@code KV_EVENT_SUBJECT}). */
  public static final String KV_EVENTS_TOPIC = "kv-events";

  /** Dynamo's topic for load reports ({@code KV_METRICS_SUBJECT}). */
  public static final String KV_METRICS_TOPIC = WorkerLoadCodec.KV_METRICS;

  static final String DEVICE = "device";
  static final String WORKER = "worker";
  static final String CACHE_OWNER = "cache_owner";

  /** Which {@code RouterEvent} fields {@code encode} writes. */
  public enum FieldSet {
    /** {@code worker_id}, {@code storage_tier}, {@code event}: the S1/S2 field set. */
    LEGACY,
    /** {@code residency_domain: "worker"} added after {@code storage_tier}: the S3 field set. */
    CURRENT
  }

  /**
   * A decoded event with what the router's {@link RouterEvent} has no room for: the storage tier
   * and the residency domain it was published under.
   *
   * @param storageTier {@code device}, {@code host_pinned}, {@code disk} or {@code external}
   * @param residencyDomain {@code worker}, {@code cache_owner}, or {@code null} when absent
   */
  public record TieredEvent(DynamoRouterEvent event, String storageTier, String residencyDomain) {
    public TieredEvent {
      Objects.requireNonNull(event, "event");
      Objects.requireNonNull(storageTier, "storageTier");
    }

    /**
     * Whether Dynamo's router applies this event to its primary index, the workers' device (GPU)
     * blocks, which is the only index this router keeps. A clear does unless it is scoped to the
     * cache-owner domain; a store or removal does when its tier is {@code device} and its domain is
     * the worker's (or absent). The rest belongs to lower tiers or to cache owners.
     */
    public boolean targetsDeviceIndex() {
      boolean cacheOwner = CACHE_OWNER.equals(residencyDomain);
      if (event.event().event() instanceof KvCacheEvent.Cleared) {
        return !cacheOwner;
      }
      return !cacheOwner && DEVICE.equals(storageTier);
    }
  }

  private DynamoMsgpackCodec() {}

  // ------------------------------------------------------------------ KV events

  /** One {@code RouterEvent} (the S1 payload), {@link FieldSet#CURRENT} fields. */
  public static byte[] encode(DynamoRouterEvent event) {
    return encode(event, FieldSet.CURRENT);
  }

  /** One {@code RouterEvent} (the S1 payload) with the given fields. */
  public static byte[] encode(DynamoRouterEvent event, FieldSet fields) {
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(fields, "fields");
    return MsgpackOut.write(out -> writeRouterEvent(out, event, fields));
  }

  /** A batch of {@code RouterEvent}s as an array (the S2/S3 payload), {@link FieldSet#CURRENT}. */
  public static byte[] encodeBatch(List<DynamoRouterEvent> events) {
    return encodeBatch(events, FieldSet.CURRENT);
  }

  /** A batch of {@code RouterEvent}s as an array (the S2/S3 payload) with the given fields. */
  public static byte[] encodeBatch(List<DynamoRouterEvent> events, FieldSet fields) {
    Objects.requireNonNull(events, "events");
    Objects.requireNonNull(fields, "fields");
    return MsgpackOut.write(
        out -> {
          out.packArrayHeader(events.size());
          for (DynamoRouterEvent event : events) {
            writeRouterEvent(out, Objects.requireNonNull(event, "event"), fields);
          }
        });
  }

  /**
   * The events of a KV event payload, one {@code RouterEvent} or an array of them, in order. Every
   * event is returned whatever its tier (see {@link #decodeTieredPayload} to tell them apart).
   *
   * @throws DynamoEventFormatException if it is neither (see the class comment)
   */
  public static List<DynamoRouterEvent> decodePayload(byte[] payload) {
    return decodeTieredPayload(payload).stream().map(TieredEvent::event).toList();
  }

  /** {@link #decodePayload}, each event with its storage tier and residency domain. */
  public static List<TieredEvent> decodeTieredPayload(byte[] payload) {
    Objects.requireNonNull(payload, "payload");
    return MsgpackIn.decode(payload, RouterEventReader::payload);
  }

  private static void writeRouterEvent(MessagePacker out, DynamoRouterEvent event, FieldSet fields)
      throws IOException {
    WorkerRank rank = event.event().worker();
    long workerId = DynamoEventCodec.workerIdToU64(rank.workerId());
    boolean current = fields == FieldSet.CURRENT;
    out.packMapHeader(current ? 4 : 3);
    MsgpackOut.string(out, "worker_id");
    MsgpackOut.u64(out, workerId);
    MsgpackOut.string(out, "storage_tier");
    MsgpackOut.string(out, DEVICE);
    if (current) {
      MsgpackOut.string(out, "residency_domain");
      MsgpackOut.string(out, WORKER);
    }
    MsgpackOut.string(out, "event");
    out.packMapHeader(3);
    MsgpackOut.string(out, "event_id");
    MsgpackOut.u64(out, event.eventId());
    MsgpackOut.string(out, "data");
    writeData(out, event.event().event());
    MsgpackOut.string(out, "dp_rank");
    MsgpackOut.u64(out, rank.dpRank());
  }

  private static void writeData(MessagePacker out, KvCacheEvent data) throws IOException {
    if (data instanceof KvCacheEvent.Stored stored) {
      out.packMapHeader(1);
      MsgpackOut.string(out, "stored");
      out.packMapHeader(3);
      MsgpackOut.string(out, "parent_hash");
      MsgpackOut.optU64(out, stored.parentBlockHash());
      MsgpackOut.string(out, "start_position");
      out.packNil();
      MsgpackOut.string(out, "blocks");
      out.packArrayHeader(stored.blocks().size());
      for (KvCacheEvent.StoredBlock block : stored.blocks()) {
        out.packMapHeader(3);
        MsgpackOut.string(out, "block_hash");
        MsgpackOut.u64(out, block.blockHash());
        MsgpackOut.string(out, "tokens_hash");
        MsgpackOut.u64(out, block.tokensHash());
        MsgpackOut.string(out, "mm_extra_info");
        out.packNil();
      }
    } else if (data instanceof KvCacheEvent.Removed removed) {
      out.packMapHeader(1);
      MsgpackOut.string(out, "removed");
      out.packMapHeader(1);
      MsgpackOut.string(out, "block_hashes");
      out.packArrayHeader(removed.blockHashes().size());
      for (long hash : removed.blockHashes()) {
        MsgpackOut.u64(out, hash);
      }
    } else {
      MsgpackOut.string(out, "cleared");
    }
  }

  // ------------------------------------------------------------------ load

  /** A load report as an {@code ActiveLoad} map with our extra counts after Dynamo's fields. */
  public static byte[] encodeLoad(WorkerLoadReport report) {
    Objects.requireNonNull(report, "report");
    long workerId = DynamoEventCodec.workerIdToU64(report.rank().workerId());
    return MsgpackOut.write(
        out -> {
          out.packMapHeader(8);
          MsgpackOut.string(out, "worker_id");
          MsgpackOut.u64(out, workerId);
          MsgpackOut.string(out, "dp_rank");
          MsgpackOut.u64(out, report.rank().dpRank());
          writeCount(out, "active_decode_blocks", report.activeDecodeBlocks());
          writeCount(out, "active_prefill_tokens", report.activePrefillTokens());
          writeCount(out, "kv_used_blocks", report.kvUsedBlocks());
          writeCount(out, "kv_total_blocks", report.kvTotalBlocks());
          writeCount(out, "num_requests_waiting", report.requestsWaiting());
          writeCount(out, "num_requests_running", report.requestsRunning());
        });
  }

  /**
   * The load report in an {@code ActiveLoad} payload.
   *
   * @throws DynamoEventFormatException if it is not one
   */
  public static WorkerLoadReport decodeLoad(byte[] payload) {
    Objects.requireNonNull(payload, "payload");
    return MsgpackIn.decode(payload, RouterEventReader::activeLoad);
  }

  private static void writeCount(MessagePacker out, String field, long value) throws IOException {
    MsgpackOut.string(out, field);
    MsgpackOut.optU64(out, value == WorkerLoadReport.UNKNOWN ? null : value);
  }
}
