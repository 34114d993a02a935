package io.kvrouter.protocol.vllm;

import io.kvrouter.protocol.msgpack.MsgpackFormatException;
import io.kvrouter.protocol.msgpack.MsgpackLengthException;
import io.kvrouter.protocol.msgpack.MsgpackReader;
import io.kvrouter.protocol.msgpack.MsgpackTypeException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.msgpack.core.MessageFormat;
import org.msgpack.value.ValueType;

/**
 * The tolerant reader behind {@link VllmEventCodec#decode}: one instance per payload, not
 * thread-safe. It reads through a {@link MsgpackReader} and keeps track of where it is ({@code
 * "event 2: block_hashes[3]"}), so that every failure, its own or the reader's (truncation, a
 * hostile length header, a wrong type), becomes a {@link VllmEventFormatException} that names the
 * place.
 */
final class VllmEventDecoder {
  private static final String STORED = "BlockStored";
  private static final String REMOVED = "BlockRemoved";
  private static final String CLEARED = "AllBlocksCleared";

  /** Positional fields of the legacy (array_like) events; index 0 is the tag. */
  static final List<String> STORED_LAYOUT =
      List.of(
          "type",
          "block_hashes",
          "parent_block_hash",
          "token_ids",
          "block_size",
          "lora_id",
          "medium",
          "lora_name",
          "extra_keys",
          "group_idx",
          "kv_cache_spec_kind");

  static final List<String> REMOVED_LAYOUT = List.of("type", "block_hashes", "medium", "group_idx");

  /** Arrays within a block's extra keys: vLLM nests one level, its (identifier, offset) pairs. */
  private static final int MAX_KEY_DEPTH = 8;

  private final MsgpackReader in;

  private String where = "batch";

  /** Element index within {@link #where}, or -1; kept apart to build no string per element. */
  private int index = -1;

  private VllmEventDecoder(byte[] payload) {
    this.in = new MsgpackReader(payload);
  }

  static VllmEventBatch decode(byte[] payload) {
    VllmEventDecoder d = new VllmEventDecoder(payload);
    try {
      VllmEventBatch batch = d.batch();
      int left = d.in.remaining();
      if (left != 0) {
        throw d.fail(left + " trailing bytes after the batch");
      }
      return batch;
    } catch (MsgpackFormatException e) {
      throw new VllmEventFormatException(
          d.location() + ": " + inOwnWords(e) + " (at byte " + e.offset() + ")", e);
    }
  }

  /**
   * The reader's problem as this decoder has always worded it: type names in capitals ({@code "got
   * STRING"}) and lengths without an article ({@code "array of 9 elements cannot fit"}).
   */
  private static String inOwnWords(MsgpackFormatException e) {
    if (e instanceof MsgpackTypeException type) {
      return "expected " + type.expected() + ", got " + type.found();
    }
    if (e instanceof MsgpackLengthException length) {
      return length.subject() + " cannot fit in the " + length.left() + " bytes left";
    }
    return e.problem();
  }

  // ---- batch and events ----

  private VllmEventBatch batch() {
    at("batch");
    MessageFormat f = in.format();
    if (f.getValueType() == ValueType.ARRAY) {
      int n = in.arrayHeader();
      if (n < 2) {
        throw fail("expected at least 2 elements [ts, events], got " + n);
      }
      at("batch: ts");
      double ts = timestamp();
      at("batch: events");
      List<VllmEvent> events = events();
      Integer rank = null;
      if (n > 2) {
        at("batch: data_parallel_rank");
        rank = optInt();
      }
      at("batch");
      in.skip(n - 3L);
      return new VllmEventBatch(ts, events, rank);
    }
    if (f.getValueType() == ValueType.MAP) {
      int n = in.mapHeader();
      Double ts = null;
      List<VllmEvent> events = null;
      Integer rank = null;
      for (int k = 0; k < n; k++) {
        at("batch");
        String key = in.key();
        if (key == null) {
          in.skip(1);
          continue;
        }
        at("batch: " + key);
        switch (key) {
          case "ts" -> ts = timestamp();
          case "events" -> events = events();
          case "data_parallel_rank" -> rank = optInt();
          default -> in.skip(1);
        }
      }
      at("batch");
      if (ts == null) {
        throw fail("map batch without ts");
      }
      if (events == null) {
        throw fail("map batch without events");
      }
      return new VllmEventBatch(ts, events, rank);
    }
    throw expected("an array or a map", f);
  }

  private List<VllmEvent> events() {
    int n = in.arrayHeader();
    List<VllmEvent> events = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      events.add(event("event " + i));
    }
    return events;
  }

  private VllmEvent event(String at) {
    at(at);
    MessageFormat f = in.format();
    if (f.getValueType() == ValueType.ARRAY) {
      return arrayEvent(at);
    }
    if (f.getValueType() == ValueType.MAP) {
      return mapEvent(at);
    }
    throw expected("an array or a map", f);
  }

  /** {@code [tag, field1, field2, ...]}: missing tail fields are absent, extra ones ignored. */
  private VllmEvent arrayEvent(String at) {
    int n = in.arrayHeader();
    if (n == 0) {
      throw fail("expected the event type at index 0, got an empty array");
    }
    at(at + ": type");
    Fields fields = new Fields(at, tag());
    List<String> layout = fields.layout();
    for (int k = 1; k < n; k++) {
      if (k >= layout.size() || !field(fields, layout.get(k))) {
        at(at + ": element " + k);
        in.skip(1);
      }
    }
    at(at);
    return fields.build();
  }

  /**
   * {@code {"type": tag, "field": value, ...}} in any order: entries read before the tag are
   * skipped and read again once it is known, because what a key means depends on the event type.
   */
  private VllmEvent mapEvent(String at) {
    int n = in.mapHeader();
    Fields fields = null;
    List<String> deferredKeys = null;
    List<Integer> deferredAt = null;
    for (int k = 0; k < n; k++) {
      at(at);
      String key = in.key();
      if (key == null) {
        in.skip(1);
        continue;
      }
      at(at + ": " + key);
      if (fields == null && key.equals("type")) {
        fields = new Fields(at, tag());
      } else if (fields == null) {
        if (deferredKeys == null) {
          deferredKeys = new ArrayList<>();
          deferredAt = new ArrayList<>();
        }
        deferredKeys.add(key);
        deferredAt.add(in.position());
        in.skip(1);
      } else if (!field(fields, key)) {
        in.skip(1);
      }
    }
    at(at);
    if (fields == null) {
      throw fail("map event without type");
    }
    if (deferredKeys != null) {
      int end = in.position();
      for (int k = 0; k < deferredKeys.size(); k++) {
        in.seek(deferredAt.get(k));
        field(fields, deferredKeys.get(k));
      }
      in.seek(end);
      at(at);
    }
    return fields.build();
  }

  private String tag() {
    String tag = in.string();
    return switch (tag) {
      case STORED, REMOVED, CLEARED -> tag;
      default -> throw fail("unknown event type \"" + abbreviate(tag) + "\"");
    };
  }

  /** Reads the value of a field the event type knows; false (nothing read) for any other. */
  private boolean field(Fields e, String name) {
    boolean stored = e.tag.equals(STORED);
    boolean removed = e.tag.equals(REMOVED);
    at(e.at + ": " + name);
    switch (name) {
      case "block_hashes" -> {
        if (!stored && !removed) {
          return false;
        }
        e.hashes = hashes();
      }
      case "medium" -> {
        if (!stored && !removed) {
          return false;
        }
        e.medium = optString();
      }
      case "group_idx" -> {
        if (!stored && !removed) {
          return false;
        }
        e.groupIdx = optInt();
      }
      case "parent_block_hash" -> {
        if (!stored) {
          return false;
        }
        e.parent = optHash();
      }
      case "token_ids" -> {
        if (!stored) {
          return false;
        }
        e.tokens = tokenIds();
      }
      case "block_size" -> {
        if (!stored) {
          return false;
        }
        e.blockSize = integer();
      }
      case "lora_id" -> {
        if (!stored) {
          return false;
        }
        e.loraId = optInt();
      }
      case "lora_name" -> {
        if (!stored) {
          return false;
        }
        e.loraName = optString();
      }
      case "kv_cache_spec_kind" -> {
        if (!stored) {
          return false;
        }
        e.kind = optString();
      }
      case "extra_keys" -> {
        if (!stored) {
          return false;
        }
        e.extraKeys = extraKeys();
      }
      case "cache_salt" -> {
        if (!stored) {
          return false;
        }
        e.cacheSalt = optString();
      }
      default -> {
        return false;
      }
    }
    return true;
  }

  /** The fields of one event as they are read, in whichever order they come. */
  private final class Fields {
    final String at;
    final String tag;
    List<Long> hashes;
    Long parent;
    int[] tokens;
    Integer blockSize;
    Integer loraId;
    String medium;
    String loraName;
    Integer groupIdx;
    String kind;
    List<List<Object>> extraKeys;
    String cacheSalt;

    Fields(String at, String tag) {
      this.at = at;
      this.tag = tag;
    }

    List<String> layout() {
      return switch (tag) {
        case STORED -> STORED_LAYOUT;
        case REMOVED -> REMOVED_LAYOUT;
        default -> List.of("type");
      };
    }

    VllmEvent build() {
      return switch (tag) {
        case STORED -> {
          require(hashes != null, "block_hashes");
          require(tokens != null, "token_ids");
          require(blockSize != null, "block_size");
          yield new VllmEvent.BlockStored(
              hashes, parent, tokens, blockSize, loraId, medium, loraName, groupIdx, kind,
              extraKeys, cacheSalt);
        }
        case REMOVED -> {
          require(hashes != null, "block_hashes");
          yield new VllmEvent.BlockRemoved(hashes, medium, groupIdx);
        }
        default -> new VllmEvent.AllBlocksCleared();
      };
    }

    private void require(boolean present, String field) {
      if (!present) {
        at(at);
        throw fail(tag + " without " + field);
      }
    }
  }

  // ---- values ----

  private List<Long> hashes() {
    int n = in.arrayHeader();
    List<Long> hashes = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      index = i;
      hashes.add(hash());
    }
    index = -1;
    return hashes;
  }

  private Long optHash() {
    return in.nil() ? null : hash();
  }

  /**
   * An engine block hash: an int of any width, kept bit for bit (uint64 above 2^63 becomes a
   * negative long), or a bin digest folded to its last eight bytes read big-endian.
   */
  private long hash() {
    MessageFormat f = in.format();
    if (f.getValueType() == ValueType.INTEGER) {
      return in.integer();
    }
    if (f.getValueType() == ValueType.BINARY) {
      byte[] digest = in.binary();
      long v = 0;
      for (int i = Math.max(0, digest.length - 8); i < digest.length; i++) {
        v = (v << 8) | (digest[i] & 0xFF);
      }
      return v;
    }
    throw expected("an integer or bin block hash", f);
  }

  /** {@code extra_keys}: nil, or per block nil or an array of keys ({@link #extraKey}). */
  private List<List<Object>> extraKeys() {
    if (in.nil()) {
      return null;
    }
    int n = in.arrayHeader();
    List<List<Object>> blocks = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      index = i;
      blocks.add(in.nil() ? null : keyArray(1));
    }
    index = -1;
    return blocks;
  }

  private List<Object> keyArray(int depth) {
    if (depth > MAX_KEY_DEPTH) {
      throw fail("extra keys nested deeper than " + MAX_KEY_DEPTH + " arrays");
    }
    int n = in.arrayHeader();
    List<Object> keys = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      keys.add(extraKey(depth));
    }
    return keys;
  }

  /**
   * One extra key as the plain value {@link VllmEvent.BlockStored#extraKeys} documents. vLLM types
   * them {@code Any}, but sends only scalars and tuples; maps and extension types, which it never
   * sends, are rejected rather than guessed at.
   */
  private Object extraKey(int depth) {
    MessageFormat f = in.format();
    switch (f.getValueType()) {
      case NIL -> {
        in.nil();
        return null;
      }
      case BOOLEAN -> {
        return in.bool();
      }
      case INTEGER -> {
        long v = in.integer();
        return f == MessageFormat.UINT64 && v < 0 ? unsigned(v) : (Object) v;
      }
      case FLOAT -> {
        return in.floating();
      }
      case STRING -> {
        return in.string();
      }
      case BINARY -> {
        // a copy: the key must not change when the caller reuses the payload buffer
        return ByteBuffer.wrap(in.binary()).asReadOnlyBuffer();
      }
      case ARRAY -> {
        return keyArray(depth + 1);
      }
      default -> throw expected("an extra key (nil, bool, number, string, bin or array)", f);
    }
  }

  private int[] tokenIds() {
    int n = in.arrayHeader();
    int[] tokens = new int[n];
    for (int i = 0; i < n; i++) {
      index = i;
      long token = in.intOrNot();
      tokens[i] = token != MsgpackReader.NOT_AN_INT ? (int) token : integer();
    }
    index = -1;
    return tokens;
  }

  private int integer() {
    boolean uint64 = in.format() == MessageFormat.UINT64;
    long v = in.integer();
    if (uint64) {
      throw fail("integer " + Long.toUnsignedString(v) + " out of int range");
    }
    if (v != (int) v) {
      throw fail("integer " + v + " out of int range");
    }
    return (int) v;
  }

  private Integer optInt() {
    return in.nil() ? null : integer();
  }

  /** Seconds as msgpack float (32 or 64) or int. */
  private double timestamp() {
    MessageFormat f = in.format();
    if (f.getValueType() == ValueType.FLOAT) {
      return in.floating();
    }
    if (f.getValueType() == ValueType.INTEGER) {
      long v = in.integer();
      return f == MessageFormat.UINT64 ? unsigned(v).doubleValue() : v;
    }
    throw expected("a number", f);
  }

  private String optString() {
    return in.nil() ? null : in.string();
  }

  /** A uint64's bits as the unsigned value they stand for. */
  private static BigInteger unsigned(long bits) {
    return new BigInteger(Long.toUnsignedString(bits));
  }

  // ---- position and failures ----

  private void at(String location) {
    where = location;
    index = -1;
  }

  private String location() {
    return index < 0 ? where : where + "[" + index + "]";
  }

  private VllmEventFormatException fail(String what) {
    return new VllmEventFormatException(
        location() + ": " + what + " (at byte " + in.position() + ")");
  }

  private VllmEventFormatException expected(String what, MessageFormat got) {
    return fail("expected " + what + ", got " + got.getValueType());
  }

  private static String abbreviate(String s) {
    return s.length() <= 64 ? s : s.substring(0, 64) + "...";
  }
}
