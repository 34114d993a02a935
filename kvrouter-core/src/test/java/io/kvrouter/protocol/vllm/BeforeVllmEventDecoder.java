package io.kvrouter.protocol.vllm;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessageInsufficientBufferException;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessageSizeException;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * The tolerant reader behind {@link VllmEventCodec#decode}: one instance per payload, not
 * thread-safe. It keeps track of where it is ({@code "event 2: block_hashes[3]"}) so that every
 * failure, its own or msgpack-core's, becomes a {@link VllmEventFormatException} that names the
 * place. Every length header is checked against the bytes left before anything is allocated for it
 * (each element takes at least one byte), so a hostile header fails at once.
 */
public final class BeforeVllmEventDecoder {
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

  private final byte[] payload;
  private MessageUnpacker in;

  /** Offset in {@link #payload} where {@link #in} starts. */
  private int base;

  private String where = "batch";

  /** Element index within {@link #where}, or -1; kept apart to build no string per element. */
  private int index = -1;

  private CharsetDecoder utf8;

  private BeforeVllmEventDecoder(byte[] payload) {
    this.payload = payload;
    seek(0);
  }

  public static VllmEventBatch decode(byte[] payload) {
    BeforeVllmEventDecoder d = new BeforeVllmEventDecoder(payload);
    try {
      VllmEventBatch batch = d.batch();
      int left = d.remaining();
      if (left != 0) {
        throw d.fail(left + " trailing bytes after the batch");
      }
      return batch;
    } catch (MessageInsufficientBufferException e) {
      throw new VllmEventFormatException(
          d.location() + ": truncated: the payload ends at byte " + payload.length, e);
    } catch (MessageSizeException e) {
      throw new VllmEventFormatException(
          d.location() + ": length header too large (" + e.getMessage() + ")", e);
    } catch (MessagePackException | IOException e) {
      throw new VllmEventFormatException(
          d.location() + ": " + e.getMessage() + " (at byte " + d.position() + ")", e);
    }
  }

  // ---- batch and events ----

  private VllmEventBatch batch() throws IOException {
    at("batch");
    MessageFormat f = format();
    if (f.getValueType() == ValueType.ARRAY) {
      int n = arrayHeader();
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
      skip(n - 3L);
      return new VllmEventBatch(ts, events, rank);
    }
    if (f.getValueType() == ValueType.MAP) {
      int n = mapHeader();
      Double ts = null;
      List<VllmEvent> events = null;
      Integer rank = null;
      for (int k = 0; k < n; k++) {
        at("batch");
        String key = optKey();
        if (key == null) {
          skip(1);
          continue;
        }
        at("batch: " + key);
        switch (key) {
          case "ts" -> ts = timestamp();
          case "events" -> events = events();
          case "data_parallel_rank" -> rank = optInt();
          default -> skip(1);
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

  private List<VllmEvent> events() throws IOException {
    int n = arrayHeader();
    List<VllmEvent> events = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      events.add(event("event " + i));
    }
    return events;
  }

  private VllmEvent event(String at) throws IOException {
    at(at);
    MessageFormat f = format();
    if (f.getValueType() == ValueType.ARRAY) {
      return arrayEvent(at);
    }
    if (f.getValueType() == ValueType.MAP) {
      return mapEvent(at);
    }
    throw expected("an array or a map", f);
  }

  /** {@code [tag, field1, field2, ...]}: missing tail fields are absent, extra ones ignored. */
  private VllmEvent arrayEvent(String at) throws IOException {
    int n = arrayHeader();
    if (n == 0) {
      throw fail("expected the event type at index 0, got an empty array");
    }
    at(at + ": type");
    Fields fields = new Fields(at, tag());
    List<String> layout = fields.layout();
    for (int k = 1; k < n; k++) {
      if (k >= layout.size() || !field(fields, layout.get(k))) {
        at(at + ": element " + k);
        skip(1);
      }
    }
    at(at);
    return fields.build();
  }

  /**
   * {@code {"type": tag, "field": value, ...}} in any order: entries read before the tag are
   * skipped and read again once it is known, because what a key means depends on the event type.
   */
  private VllmEvent mapEvent(String at) throws IOException {
    int n = mapHeader();
    Fields fields = null;
    List<String> deferredKeys = null;
    List<Integer> deferredAt = null;
    for (int k = 0; k < n; k++) {
      at(at);
      String key = optKey();
      if (key == null) {
        skip(1);
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
        deferredAt.add(position());
        skip(1);
      } else if (!field(fields, key)) {
        skip(1);
      }
    }
    at(at);
    if (fields == null) {
      throw fail("map event without type");
    }
    if (deferredKeys != null) {
      int end = position();
      for (int k = 0; k < deferredKeys.size(); k++) {
        seek(deferredAt.get(k));
        field(fields, deferredKeys.get(k));
      }
      seek(end);
      at(at);
    }
    return fields.build();
  }

  private String tag() throws IOException {
    String tag = string();
    return switch (tag) {
      case STORED, REMOVED, CLEARED -> tag;
      default -> throw fail("unknown event type \"" + abbreviate(tag) + "\"");
    };
  }

  /** Reads the value of a field the event type knows; false (nothing read) for any other. */
  private boolean field(Fields e, String name) throws IOException {
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
              extraKeys);
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

  private List<Long> hashes() throws IOException {
    int n = arrayHeader();
    List<Long> hashes = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      index = i;
      hashes.add(hash());
    }
    index = -1;
    return hashes;
  }

  private Long optHash() throws IOException {
    return nil() ? null : hash();
  }

  /**
   * An engine block hash: an int of any width, kept bit for bit (uint64 above 2^63 becomes a
   * negative long), or a bin digest folded to its last eight bytes read big-endian.
   */
  private long hash() throws IOException {
    MessageFormat f = format();
    if (f == MessageFormat.UINT64) {
      int start = position();
      in.skipValue(); // throws when truncated, so the eight bytes below are there
      return bigEndian(payload, start + 1, 8);
    }
    if (f.getValueType() == ValueType.INTEGER) {
      return in.unpackLong();
    }
    if (f.getValueType() == ValueType.BINARY) {
      int len = in.unpackBinaryHeader();
      need(len, "bin of " + len + " bytes");
      int start = position();
      skipRaw(len);
      int n = Math.min(len, 8);
      return bigEndian(payload, start + len - n, n);
    }
    throw expected("an integer or bin block hash", f);
  }

  /** {@code extra_keys}: nil, or per block nil or an array of keys ({@link #extraKey}). */
  private List<List<Object>> extraKeys() throws IOException {
    if (nil()) {
      return null;
    }
    int n = arrayHeader();
    List<List<Object>> blocks = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      index = i;
      blocks.add(nil() ? null : keyArray(1));
    }
    index = -1;
    return blocks;
  }

  private List<Object> keyArray(int depth) throws IOException {
    if (depth > MAX_KEY_DEPTH) {
      throw fail("extra keys nested deeper than " + MAX_KEY_DEPTH + " arrays");
    }
    int n = arrayHeader();
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
  private Object extraKey(int depth) throws IOException {
    MessageFormat f = format();
    switch (f.getValueType()) {
      case NIL -> {
        in.unpackNil();
        return null;
      }
      case BOOLEAN -> {
        return in.unpackBoolean();
      }
      case INTEGER -> {
        if (f == MessageFormat.UINT64) {
          BigInteger v = in.unpackBigInteger();
          return v.bitLength() < Long.SIZE ? (Object) v.longValue() : v;
        }
        return in.unpackLong();
      }
      case FLOAT -> {
        return in.unpackDouble();
      }
      case STRING -> {
        return string();
      }
      case BINARY -> {
        int len = in.unpackBinaryHeader();
        need(len, "bin of " + len + " bytes");
        int start = position();
        skipRaw(len);
        // a copy: the key must not change when the caller reuses the payload buffer
        return ByteBuffer.wrap(Arrays.copyOfRange(payload, start, start + len)).asReadOnlyBuffer();
      }
      case ARRAY -> {
        return keyArray(depth + 1);
      }
      default -> throw expected("an extra key (nil, bool, number, string, bin or array)", f);
    }
  }

  private int[] tokenIds() throws IOException {
    int n = arrayHeader();
    int[] tokens = new int[n];
    for (int i = 0; i < n; i++) {
      index = i;
      tokens[i] = integer();
    }
    index = -1;
    return tokens;
  }

  private int integer() throws IOException {
    MessageFormat f = format();
    if (f.getValueType() != ValueType.INTEGER) {
      throw expected("an integer", f);
    }
    if (f == MessageFormat.UINT64) {
      throw fail("integer " + in.unpackBigInteger() + " out of int range");
    }
    long v = in.unpackLong();
    if (v != (int) v) {
      throw fail("integer " + v + " out of int range");
    }
    return (int) v;
  }

  private Integer optInt() throws IOException {
    return nil() ? null : integer();
  }

  /** Seconds as msgpack float (32 or 64) or int. */
  private double timestamp() throws IOException {
    MessageFormat f = format();
    if (f.getValueType() == ValueType.FLOAT) {
      return in.unpackDouble();
    }
    if (f == MessageFormat.UINT64) {
      BigInteger v = in.unpackBigInteger();
      return v.doubleValue();
    }
    if (f.getValueType() == ValueType.INTEGER) {
      return in.unpackLong();
    }
    throw expected("a number", f);
  }

  private String optString() throws IOException {
    return nil() ? null : string();
  }

  private String string() throws IOException {
    MessageFormat f = format();
    if (f.getValueType() != ValueType.STRING) {
      throw expected("a string", f);
    }
    int len = in.unpackRawStringHeader();
    need(len, "string of " + len + " bytes");
    int start = position();
    skipRaw(len);
    if (utf8 == null) {
      utf8 = StandardCharsets.UTF_8.newDecoder(); // reports malformed input
    }
    try {
      return utf8.decode(ByteBuffer.wrap(payload, start, len)).toString();
    } catch (CharacterCodingException e) {
      throw fail("invalid UTF-8 in a string");
    }
  }

  /** A map key: the string, or null (nothing left to read but its value) for any other type. */
  private String optKey() throws IOException {
    if (format().getValueType() == ValueType.STRING) {
      return string();
    }
    skip(1);
    return null;
  }

  private boolean nil() throws IOException {
    if (format() == MessageFormat.NIL) {
      in.unpackNil();
      return true;
    }
    return false;
  }

  private int arrayHeader() throws IOException {
    MessageFormat f = format();
    if (f.getValueType() != ValueType.ARRAY) {
      throw expected("an array", f);
    }
    int n = in.unpackArrayHeader();
    need(n, "array of " + n + " elements");
    return n;
  }

  private int mapHeader() throws IOException {
    MessageFormat f = format();
    if (f.getValueType() != ValueType.MAP) {
      throw expected("a map", f);
    }
    int n = in.unpackMapHeader();
    need(2L * n, "map of " + n + " entries");
    return n;
  }

  /**
   * Skips {@code count} values without allocating for them. msgpack-core's own skipValue is not
   * used for containers: it would let a map header of 2^30+ entries overflow its counter.
   */
  private void skip(long count) throws IOException {
    while (count > 0) {
      MessageFormat f = format();
      switch (f.getValueType()) {
        case ARRAY -> count += arrayHeader();
        case MAP -> count += 2L * mapHeader();
        case STRING, BINARY -> {
          int len =
              f.getValueType() == ValueType.STRING
                  ? in.unpackRawStringHeader()
                  : in.unpackBinaryHeader();
          need(len, "raw value of " + len + " bytes");
          skipRaw(len);
        }
        default -> in.skipValue(); // scalars and extensions (their payload is checked by it)
      }
      count--;
    }
  }

  /** Moves past {@code len} payload bytes already checked by {@link #need}. */
  private void skipRaw(int len) throws IOException {
    if (len > 0) {
      in.readPayloadAsReference(len);
    }
  }

  private MessageFormat format() throws IOException {
    MessageFormat f = in.getNextFormat();
    if (f == MessageFormat.NEVER_USED) {
      throw fail("invalid msgpack byte 0xc1");
    }
    return f;
  }

  // ---- position and failures ----

  private void seek(int offset) {
    in = MessagePack.newDefaultUnpacker(payload, offset, payload.length - offset);
    base = offset;
  }

  private int position() {
    return base + (int) in.getTotalReadBytes();
  }

  private int remaining() {
    return payload.length - position();
  }

  private void need(long bytes, String what) {
    int left = remaining();
    if (bytes > left) {
      throw fail(what + " cannot fit in the " + left + " bytes left");
    }
  }

  private void at(String location) {
    where = location;
    index = -1;
  }

  private String location() {
    return index < 0 ? where : where + "[" + index + "]";
  }

  private VllmEventFormatException fail(String what) {
    return new VllmEventFormatException(location() + ": " + what + " (at byte " + position() + ")");
  }

  private VllmEventFormatException expected(String what, MessageFormat got) {
    return fail("expected " + what + ", got " + got.getValueType());
  }

  private static long bigEndian(byte[] bytes, int from, int count) {
    long v = 0;
    for (int i = from; i < from + count; i++) {
      v = (v << 8) | (bytes[i] & 0xFF);
    }
    return v;
  }

  private static String abbreviate(String s) {
    return s.length() <= 64 ? s : s.substring(0, 64) + "...";
  }
}
