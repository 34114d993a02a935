package io.kvrouter.protocol.dynamo;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Dynamo's JSON {@code RouterEvent} (serde, {@code lib/kv-router/src/protocols.rs}, E2 field set;
 * {@code docs/interop.md} §2) ⇄ the router's {@link RouterEvent} with its event id ({@link
 * DynamoRouterEvent}), and the {@code KvCacheEvents} batch ({@link DynamoKvCacheEvents}).
 *
 * <h2>Wire format</h2>
 *
 * <pre>
 * RouterEvent:  {"worker_id": u64,
 *                "event": {"event_id": u64,
 *                          "data": DATA,
 *                          "dp_rank": u32}}                      dp_rank: 0 when absent
 *
 * DATA (externally tagged, snake_case):
 *   {"stored": {"parent_hash": u64|null,                        null/absent: the sequence start
 *               "blocks": [{"block_hash": u64,                  engine sequence hash
 *                           "tokens_hash": u64,                 router LocalBlockHash
 *                           "mm_extra_info": null}, ...]}}      parent → child order
 *   {"removed": {"block_hashes": [u64, ...]}}
 *   "cleared"                                                  ({"cleared": null} also read)
 *
 * KvCacheEvents: {"events": [{"event_id", "data", "dp_rank"}, ...], "shutdown": bool}
 *
 * example: {"worker_id":7,"event":{"event_id":1,"data":{"stored":{"parent_hash":1,"blocks":
 *          [{"block_hash":2,"tokens_hash":3,"mm_extra_info":null}]}},"dp_rank":0}}
 * </pre>
 *
 * <h2>Encoding</h2>
 *
 * Compact JSON (no spaces), fields in exactly the order above, every u64 as an unsigned decimal
 * ({@code 18446744073709551615} for {@code -1L}), {@code parent_hash} written as {@code null} when
 * absent and {@code mm_extra_info} always {@code null}, as serde writes them. The worker id is our
 * {@link WorkerRank#workerId()} string, which must be a canonical unsigned decimal u64 ({@code
 * "7"}, not {@code "07"} or {@code "worker-a"}); anything else is an {@link
 * IllegalArgumentException} that names it: a Dynamo consumer could not parse it.
 *
 * <h2>Decoding</h2>
 *
 * Tolerant of what it does not need: unknown fields anywhere (E3's {@code storage_tier}, {@code
 * residency_domain}, {@code state_source}, {@code start_position}, and {@code mm_extra_info}, which
 * is read as opaque and dropped) and any field order. Strict about what it needs: {@code
 * worker_id}, {@code event}, {@code event_id}, {@code data}, {@code blocks}, {@code block_hash},
 * {@code tokens_hash} and {@code block_hashes} must be present, every u64 an integer in [0,
 * 2<sup>64</sup>) (no strings, fractions or exponents), {@code dp_rank} in [0, 2<sup>31</sup>), the
 * data exactly one known variant, keys unique, nothing after the value. Anything else is a {@link
 * DynamoEventFormatException} whose message starts with the field's path. The worker id becomes its
 * unsigned decimal string, so it round-trips exactly.
 *
 * <p>Thread-safe and stateless.
 */
public final class DynamoEventCodec {
  private static final BigInteger U64_LIMIT = BigInteger.ONE.shiftLeft(64);
  private static final JsonMapper MAPPER =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();
  private static final JsonFactory FACTORY = MAPPER.getFactory();

  private DynamoEventCodec() {}

  // ------------------------------------------------------------------ encode

  /** {@code event} as compact UTF-8 JSON. */
  public static byte[] encode(DynamoRouterEvent event) {
    return write(g -> writeRouterEvent(g, event));
  }

  /** {@code event} as a compact JSON string. */
  public static String encodeToString(DynamoRouterEvent event) {
    return new String(encode(event), StandardCharsets.UTF_8);
  }

  /** A {@code KvCacheEvents} batch as compact UTF-8 JSON. */
  public static byte[] encodeBatch(DynamoKvCacheEvents batch) {
    Objects.requireNonNull(batch, "batch");
    return write(
        g -> {
          g.writeStartObject();
          g.writeFieldName("events");
          g.writeStartArray();
          for (DynamoKvCacheEvent e : batch.events()) {
            writeKvCacheEvent(g, e.eventId(), e.data(), e.dpRank());
          }
          g.writeEndArray();
          g.writeBooleanField("shutdown", batch.shutdown());
          g.writeEndObject();
        });
  }

  /**
   * Dynamo's u64 worker id for our worker id string.
   *
   * @throws IllegalArgumentException if {@code workerId} is not a canonical unsigned decimal u64
   */
  public static long workerIdToU64(String workerId) {
    Objects.requireNonNull(workerId, "workerId");
    long value;
    try {
      value = Long.parseUnsignedLong(workerId);
    } catch (NumberFormatException e) {
      throw notNumeric(workerId);
    }
    if (!Long.toUnsignedString(value).equals(workerId)) {
      throw notNumeric(workerId);
    }
    return value;
  }

  /** Our worker id string for Dynamo's u64 worker id: its unsigned decimal. */
  public static String workerIdFromU64(long workerId) {
    return Long.toUnsignedString(workerId);
  }

  private static IllegalArgumentException notNumeric(String workerId) {
    return new IllegalArgumentException(
        "worker id '"
            + workerId
            + "' cannot be sent as Dynamo's worker_id: it must be a canonical"
            + " unsigned decimal u64 (0..18446744073709551615, no sign or leading zeros)");
  }

  static void writeRouterEvent(JsonGenerator g, DynamoRouterEvent event) throws IOException {
    Objects.requireNonNull(event, "event");
    WorkerRank rank = event.event().worker();
    long workerId = workerIdToU64(rank.workerId());
    g.writeStartObject();
    g.writeFieldName("worker_id");
    writeU64(g, workerId);
    g.writeFieldName("event");
    writeKvCacheEvent(g, event.eventId(), event.event().event(), rank.dpRank());
    g.writeEndObject();
  }

  private static void writeKvCacheEvent(JsonGenerator g, long eventId, KvCacheEvent data, int dp)
      throws IOException {
    g.writeStartObject();
    g.writeFieldName("event_id");
    writeU64(g, eventId);
    g.writeFieldName("data");
    writeData(g, data);
    g.writeNumberField("dp_rank", dp);
    g.writeEndObject();
  }

  private static void writeData(JsonGenerator g, KvCacheEvent data) throws IOException {
    if (data instanceof KvCacheEvent.Stored stored) {
      g.writeStartObject();
      g.writeFieldName("stored");
      g.writeStartObject();
      g.writeFieldName("parent_hash");
      if (stored.parentBlockHash() == null) {
        g.writeNull();
      } else {
        writeU64(g, stored.parentBlockHash());
      }
      g.writeFieldName("blocks");
      g.writeStartArray();
      for (KvCacheEvent.StoredBlock block : stored.blocks()) {
        g.writeStartObject();
        g.writeFieldName("block_hash");
        writeU64(g, block.blockHash());
        g.writeFieldName("tokens_hash");
        writeU64(g, block.tokensHash());
        g.writeNullField("mm_extra_info");
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
      g.writeEndObject();
    } else if (data instanceof KvCacheEvent.Removed removed) {
      g.writeStartObject();
      g.writeFieldName("removed");
      g.writeStartObject();
      g.writeFieldName("block_hashes");
      g.writeStartArray();
      for (long hash : removed.blockHashes()) {
        writeU64(g, hash);
      }
      g.writeEndArray();
      g.writeEndObject();
      g.writeEndObject();
    } else {
      g.writeString("cleared");
    }
  }

  static void writeU64(JsonGenerator g, long value) throws IOException {
    if (value >= 0) {
      g.writeNumber(value);
    } else {
      g.writeNumber(Long.toUnsignedString(value));
    }
  }

  interface Writing {
    void write(JsonGenerator g) throws IOException;
  }

  static byte[] write(Writing writing) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      writing.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  // ------------------------------------------------------------------ decode

  /**
   * The {@code RouterEvent} in {@code json} (UTF-8).
   *
   * @throws DynamoEventFormatException if it is not one (see the class comment)
   */
  public static DynamoRouterEvent decode(byte[] json) {
    Objects.requireNonNull(json, "json");
    return routerEvent(parse(json), "");
  }

  /** {@link #decode(byte[])} of a string. */
  public static DynamoRouterEvent decode(String json) {
    Objects.requireNonNull(json, "json");
    return decode(json.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The {@code KvCacheEvents} batch in {@code json} (UTF-8). {@code shutdown} is false when absent.
   *
   * @throws DynamoEventFormatException if it is not one
   */
  public static DynamoKvCacheEvents decodeBatch(byte[] json) {
    Objects.requireNonNull(json, "json");
    JsonNode root = object(parse(json), "$");
    JsonNode events = required(root, "events", "");
    if (!events.isArray()) {
      throw wrongType("events", "an array", events);
    }
    List<DynamoKvCacheEvent> out = new ArrayList<>(events.size());
    for (int i = 0; i < events.size(); i++) {
      String path = "events[" + i + "]";
      JsonNode event = object(events.get(i), path);
      out.add(
          new DynamoKvCacheEvent(
              u64(required(event, "event_id", path), path + ".event_id"),
              data(required(event, "data", path), path + ".data"),
              dpRank(event.get("dp_rank"), path + ".dp_rank")));
    }
    JsonNode shutdown = root.get("shutdown");
    if (shutdown != null && !shutdown.isNull() && !shutdown.isBoolean()) {
      throw wrongType("shutdown", "a boolean", shutdown);
    }
    return new DynamoKvCacheEvents(out, shutdown != null && shutdown.asBoolean());
  }

  static JsonNode parse(byte[] json) {
    try {
      JsonNode node = MAPPER.readTree(json);
      if (node == null || node.isMissingNode()) {
        throw new DynamoEventFormatException("$: empty input, expected a JSON object");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw new DynamoEventFormatException("$: malformed JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The {@code RouterEvent} at {@code path} ({@code ""} for the root). */
  static DynamoRouterEvent routerEvent(JsonNode root, String path) {
    String prefix = path.isEmpty() ? "" : path + ".";
    object(root, path.isEmpty() ? "$" : path);
    long workerId = u64(required(root, "worker_id", path), prefix + "worker_id");
    JsonNode event = object(required(root, "event", path), prefix + "event");
    long eventId = u64(required(event, "event_id", prefix + "event"), prefix + "event.event_id");
    KvCacheEvent data = data(required(event, "data", prefix + "event"), prefix + "event.data");
    int dpRank = dpRank(event.get("dp_rank"), prefix + "event.dp_rank");
    return new DynamoRouterEvent(
        new RouterEvent(new WorkerRank(workerIdFromU64(workerId), dpRank), data), eventId);
  }

  private static KvCacheEvent data(JsonNode data, String path) {
    if (data.isTextual()) {
      if (data.textValue().equals("cleared")) {
        return KvCacheEvent.cleared();
      }
      throw new DynamoEventFormatException(
          path
              + ": unknown variant \""
              + data.textValue()
              + "\", expected \"cleared\" or an"
              + " object {\"stored\":...} / {\"removed\":...}");
    }
    object(data, path);
    if (data.size() != 1) {
      throw new DynamoEventFormatException(
          path
              + ": expected exactly one variant key (stored, removed, cleared), got "
              + data.size());
    }
    Map.Entry<String, JsonNode> variant = data.fields().next();
    String where = path + "." + variant.getKey();
    switch (variant.getKey()) {
      case "stored":
        return stored(object(variant.getValue(), where), where);
      case "removed":
        JsonNode removed = object(variant.getValue(), where);
        return new KvCacheEvent.Removed(
            u64List(required(removed, "block_hashes", where), where + ".block_hashes"));
      case "cleared":
        if (!variant.getValue().isNull()) {
          throw wrongType(where, "null", variant.getValue());
        }
        return KvCacheEvent.cleared();
      default:
        throw new DynamoEventFormatException(
            path
                + ": unknown variant \""
                + variant.getKey()
                + "\", expected stored, removed or cleared");
    }
  }

  private static KvCacheEvent.Stored stored(JsonNode stored, String path) {
    JsonNode parentNode = stored.get("parent_hash");
    Long parent =
        parentNode == null || parentNode.isNull() ? null : u64(parentNode, path + ".parent_hash");
    JsonNode blocks = required(stored, "blocks", path);
    if (!blocks.isArray()) {
      throw wrongType(path + ".blocks", "an array", blocks);
    }
    List<KvCacheEvent.StoredBlock> out = new ArrayList<>(blocks.size());
    for (int i = 0; i < blocks.size(); i++) {
      String where = path + ".blocks[" + i + "]";
      JsonNode block = object(blocks.get(i), where);
      out.add(
          new KvCacheEvent.StoredBlock(
              u64(required(block, "block_hash", where), where + ".block_hash"),
              u64(required(block, "tokens_hash", where), where + ".tokens_hash")));
    }
    return new KvCacheEvent.Stored(parent, out);
  }

  static List<Long> u64List(JsonNode array, String path) {
    if (!array.isArray()) {
      throw wrongType(path, "an array", array);
    }
    List<Long> out = new ArrayList<>(array.size());
    Iterator<JsonNode> it = array.elements();
    for (int i = 0; it.hasNext(); i++) {
      out.add(u64(it.next(), path + "[" + i + "]"));
    }
    return out;
  }

  static long u64(JsonNode node, String path) {
    if (!node.isIntegralNumber()) {
      throw wrongType(path, "an unsigned 64-bit integer", node);
    }
    BigInteger value = node.bigIntegerValue();
    if (value.signum() < 0 || value.compareTo(U64_LIMIT) >= 0) {
      throw new DynamoEventFormatException(
          path + ": " + value + " is outside the u64 range 0..18446744073709551615");
    }
    return value.longValue();
  }

  static int dpRank(JsonNode node, String path) {
    if (node == null || node.isNull()) {
      return 0;
    }
    long value = u64(node, path);
    if (value < 0 || value > Integer.MAX_VALUE) {
      throw new DynamoEventFormatException(
          path + ": " + Long.toUnsignedString(value) + " is outside 0.." + Integer.MAX_VALUE);
    }
    return (int) value;
  }

  static JsonNode required(JsonNode parent, String field, String parentPath) {
    JsonNode node = parent.get(field);
    String path = parentPath.isEmpty() ? field : parentPath + "." + field;
    if (node == null) {
      throw new DynamoEventFormatException(path + ": required field is missing");
    }
    if (node.isNull()) {
      throw new DynamoEventFormatException(path + ": required field is null");
    }
    return node;
  }

  static JsonNode object(JsonNode node, String path) {
    if (!node.isObject()) {
      throw wrongType(path, "an object", node);
    }
    return node;
  }

  static DynamoEventFormatException wrongType(String path, String expected, JsonNode got) {
    return new DynamoEventFormatException(
        path
            + ": expected "
            + expected
            + ", got "
            + got.getNodeType()
            + (got.isNumber() ? " " + got.asText() : ""));
  }
}
