package io.kvrouter.protocol.vllm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePacker;

/**
 * vLLM's {@code KVEventBatch} in msgpack, the payload frame of its ZMQ KV event publisher ({@code
 * docs/interop.md} §5.2). vLLM has published two generations; this codec reads both (and the
 * late-main map batch) and writes either.
 *
 * <h2>Legacy generation ({@link Encoding#ARRAY}; vLLM before vllm#42892)</h2>
 *
 * Every struct is {@code array_like}, and msgspec ignores {@code omit_defaults} for those, so every
 * field is present, {@code nil} when None. Arrays only ever grew at the tail.
 *
 * <pre>
 * batch:   [ ts: float64, [ event, ... ], data_parallel_rank: int|nil ]     (earliest: [ts, events])
 *
 * event:   [ "BlockStored",                                   index
 *            block_hashes:       [ uint|bin, ... ],             1
 *            parent_block_hash:  uint|bin|nil,                  2
 *            token_ids:          [ int, ... ],                  3   n_blocks * block_size
 *            block_size:         int,                           4
 *            lora_id:            int|nil,                       5   (earliest events end here)
 *            medium:             str|nil,                       6   "GPU", "CPU", ...
 *            lora_name:          str|nil,                       7
 *            extra_keys:         [ [key, ...]|nil, ... ]|nil,   8   one entry per block
 *            group_idx:          int|nil,                       9
 *            kv_cache_spec_kind: str|nil,                      10   "full_attention", ...
 *            ... ]                                                  newer fields: ignored
 *          [ "BlockRemoved", block_hashes, medium, group_idx, ... ]   (earliest: 2 elements)
 *          [ "AllBlocksCleared", ... ]
 * </pre>
 *
 * <h2>Current generation ({@link Encoding#MAP})</h2>
 *
 * The events lost {@code array_like}; the batch kept it. Each event is a map tagged by {@code
 * "type"}, and None-valued fields that have a default ({@code extra_keys}, {@code group_idx},
 * {@code kv_cache_spec_*}, {@code locality}, {@code ownership}) are left out; {@code
 * parent_block_hash}, {@code lora_id}, {@code medium} and {@code lora_name} have no default and are
 * always sent, {@code nil} when None.
 *
 * <pre>
 * batch:   [ ts: float64, [ event, ... ], data_parallel_rank: int|nil ]
 *
 * event:   { "type": "BlockStored",
 *            "block_hashes": [ uint|bin, ... ], "parent_block_hash": uint|bin|nil,
 *            "token_ids": [ int, ... ], "block_size": int,
 *            "lora_id": int|nil, "medium": str|nil, "lora_name": str|nil,
 *            "extra_keys": [...],          only when not None
 *            "group_idx": int,             only when not None
 *            "kv_cache_spec_kind": str,    only when not None
 *            "cache_salt": str }           not vLLM's: a cache namespace some producers send
 *                                          (read as Dynamo's decoder reads it; vLLM names its
 *                                          salt in extra_keys, docs/interop.md §16)
 *          { "type": "BlockRemoved", "block_hashes": [...], "medium": str|nil, "group_idx": int }
 *          { "type": "AllBlocksCleared" }
 * </pre>
 *
 * <h2>Late main (vLLM 0181ea31): the batch as a map</h2>
 *
 * <pre>
 * batch:   { "ts": float64, "events": [ event, ... ], "data_parallel_rank": int|nil }
 * </pre>
 *
 * <h2>Decoding</h2>
 *
 * Tolerant in what it accepts, strict about types: the batch as an array (2 or more elements) or a
 * map; each event as an array or a map, independently; keys in any order; unknown keys, unknown
 * map-key types and extra trailing elements skipped; missing trailing elements and missing optional
 * keys read as absent ({@code null}). {@code ts} may be a float or an int. A block's extra keys are
 * read as plain values (see {@link VllmEvent.BlockStored#extraKeys}); a map or an extension type
 * among them, or arrays nested more than eight deep, are format errors. Block hashes may be ints of
 * any width and sign, kept bit for bit in a {@code long} (uint64 above 2^63 becomes negative), or
 * {@code bin}, folded to its last eight bytes read big-endian (shorter bins: their big-endian
 * value); a {@code str} hash is rejected. {@code token_ids} is not checked against {@code
 * block_hashes.size() * block_size}: the consumer decides. Anything else, including truncation,
 * trailing bytes, an unknown event type and a length header longer than the payload (checked before
 * any allocation), is a {@link VllmEventFormatException} that says what and where.
 *
 * <h2>Encoding</h2>
 *
 * Byte for byte what Python msgpack (and msgspec) write for the same values: {@code ts} as float64,
 * ints in their smallest form, block hashes unsigned (uint64 when the top bit is set), strings as
 * fixstr/str8/str16/str32, bin as bin8/bin16/bin32. {@link Encoding#ARRAY} writes the
 * eleven-element BlockStored above, up to {@code kv_cache_spec_kind}.
 */
public final class VllmEventCodec {

  /** The two generations vLLM publishes; see the class documentation. */
  public enum Encoding {
    /** Legacy: batch and events positional arrays, every field present. */
    ARRAY,
    /**
     * Current: batch array, events maps with {@code "type"}; None-valued defaulted fields omitted,
     * {@code parent_block_hash}, {@code lora_id}, {@code medium}, {@code lora_name} always present.
     */
    MAP
  }

  private static final VarHandle SHORT =
      MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

  private VllmEventCodec() {}

  /**
   * Decodes one payload (the last frame of a PUB message or a replay reply).
   *
   * @throws VllmEventFormatException if it is not exactly one batch in either generation
   */
  public static VllmEventBatch decode(byte[] payload) {
    Objects.requireNonNull(payload, "payload");
    return VllmEventDecoder.decode(payload);
  }

  /** Encodes a batch as vLLM of the given generation publishes it. */
  public static byte[] encode(VllmEventBatch batch, Encoding encoding) {
    Objects.requireNonNull(batch, "batch");
    Objects.requireNonNull(encoding, "encoding");
    try (MessageBufferPacker out = MessagePack.newDefaultBufferPacker()) {
      out.packArrayHeader(3);
      out.packDouble(batch.timestamp());
      out.packArrayHeader(batch.events().size());
      for (VllmEvent event : batch.events()) {
        if (encoding == Encoding.ARRAY) {
          packArray(out, event);
        } else {
          packMap(out, event);
        }
      }
      packOptInt(out, batch.dataParallelRank());
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException("msgpack into memory failed", e); // not expected
    }
  }

  private static void packArray(MessagePacker out, VllmEvent event) throws IOException {
    if (event instanceof VllmEvent.BlockStored e) {
      out.packArrayHeader(VllmEventDecoder.STORED_LAYOUT.size());
      packString(out, "BlockStored");
      packHashes(out, e.blockHashes());
      packOptHash(out, e.parentBlockHash());
      packTokens(out, e.tokens());
      out.packInt(e.blockSize());
      packOptInt(out, e.loraId());
      packOptString(out, e.medium());
      packOptString(out, e.loraName());
      packKey(out, e.extraKeys());
      packOptInt(out, e.groupIdx());
      packOptString(out, e.kvCacheSpecKind());
    } else if (event instanceof VllmEvent.BlockRemoved e) {
      out.packArrayHeader(VllmEventDecoder.REMOVED_LAYOUT.size());
      packString(out, "BlockRemoved");
      packHashes(out, e.blockHashes());
      packOptString(out, e.medium());
      packOptInt(out, e.groupIdx());
    } else {
      out.packArrayHeader(1);
      packString(out, "AllBlocksCleared");
    }
  }

  private static void packMap(MessagePacker out, VllmEvent event) throws IOException {
    if (event instanceof VllmEvent.BlockStored e) {
      out.packMapHeader(
          8
              + (e.extraKeys() != null ? 1 : 0)
              + (e.groupIdx() != null ? 1 : 0)
              + (e.kvCacheSpecKind() != null ? 1 : 0)
              + (e.cacheSalt() != null ? 1 : 0));
      packString(out, "type");
      packString(out, "BlockStored");
      packString(out, "block_hashes");
      packHashes(out, e.blockHashes());
      packString(out, "parent_block_hash");
      packOptHash(out, e.parentBlockHash());
      packString(out, "token_ids");
      packTokens(out, e.tokens());
      packString(out, "block_size");
      out.packInt(e.blockSize());
      packString(out, "lora_id");
      packOptInt(out, e.loraId());
      packString(out, "medium");
      packOptString(out, e.medium());
      packString(out, "lora_name");
      packOptString(out, e.loraName());
      if (e.extraKeys() != null) {
        packString(out, "extra_keys");
        packKey(out, e.extraKeys());
      }
      if (e.groupIdx() != null) {
        packString(out, "group_idx");
        out.packInt(e.groupIdx());
      }
      if (e.kvCacheSpecKind() != null) {
        packString(out, "kv_cache_spec_kind");
        packString(out, e.kvCacheSpecKind());
      }
      if (e.cacheSalt() != null) {
        packString(out, "cache_salt");
        packString(out, e.cacheSalt());
      }
    } else if (event instanceof VllmEvent.BlockRemoved e) {
      out.packMapHeader(3 + (e.groupIdx() != null ? 1 : 0));
      packString(out, "type");
      packString(out, "BlockRemoved");
      packString(out, "block_hashes");
      packHashes(out, e.blockHashes());
      packString(out, "medium");
      packOptString(out, e.medium());
      if (e.groupIdx() != null) {
        packString(out, "group_idx");
        out.packInt(e.groupIdx());
      }
    } else {
      out.packMapHeader(1);
      packString(out, "type");
      packString(out, "AllBlocksCleared");
    }
  }

  private static void packHashes(MessagePacker out, List<Long> hashes) throws IOException {
    out.packArrayHeader(hashes.size());
    for (long hash : hashes) {
      packHash(out, hash);
    }
  }

  /** Unsigned: a long with the top bit set is a uint64 above 2^63, as vLLM's Python int. */
  private static void packHash(MessagePacker out, long hash) throws IOException {
    if (hash >= 0) {
      out.packLong(hash);
      return;
    }
    byte[] uint64 = new byte[9];
    uint64[0] = (byte) 0xCF;
    for (int i = 0; i < 8; i++) {
      uint64[1 + i] = (byte) (hash >>> (56 - 8 * i));
    }
    out.writePayload(uint64);
  }

  private static void packOptHash(MessagePacker out, Long hash) throws IOException {
    if (hash == null) {
      out.packNil();
    } else {
      packHash(out, hash);
    }
  }

  /**
   * Each token in its smallest int form, as Python's msgpack and {@link MessagePacker#packInt}
   * write it, gathered into one payload: packing them one by one costs a bounds check and a call
   * each.
   */
  private static void packTokens(MessagePacker out, int[] tokens) throws IOException {
    out.packArrayHeader(tokens.length);
    byte[] bytes = new byte[tokens.length * 5];
    int at = 0;
    for (int v : tokens) {
      if (v >= -32 && v < 128) {
        bytes[at++] = (byte) v; // positive or negative fixint
      } else if (v >= 0) {
        if (v < 1 << 8) {
          bytes[at++] = (byte) 0xcc;
          bytes[at++] = (byte) v;
        } else if (v < 1 << 16) {
          bytes[at] = (byte) 0xcd;
          SHORT.set(bytes, at + 1, (short) v);
          at += 3;
        } else {
          bytes[at] = (byte) 0xce;
          INT.set(bytes, at + 1, v);
          at += 5;
        }
      } else if (v >= -(1 << 7)) {
        bytes[at++] = (byte) 0xd0;
        bytes[at++] = (byte) v;
      } else if (v >= -(1 << 15)) {
        bytes[at] = (byte) 0xd1;
        SHORT.set(bytes, at + 1, (short) v);
        at += 3;
      } else {
        bytes[at] = (byte) 0xd2;
        INT.set(bytes, at + 1, v);
        at += 5;
      }
    }
    out.writePayload(bytes, 0, at);
  }

  /** One value of {@link VllmEvent.BlockStored#extraKeys}, or a list of them. */
  private static void packKey(MessagePacker out, Object key) throws IOException {
    if (key == null) {
      out.packNil();
    } else if (key instanceof Boolean b) {
      out.packBoolean(b);
    } else if (key instanceof Long l) {
      out.packLong(l);
    } else if (key instanceof BigInteger b) {
      out.packBigInteger(b);
    } else if (key instanceof Double d) {
      out.packDouble(d);
    } else if (key instanceof String str) {
      packString(out, str);
    } else if (key instanceof ByteBuffer bytes) {
      byte[] copy = new byte[bytes.remaining()];
      bytes.duplicate().get(copy);
      out.packBinaryHeader(copy.length);
      out.writePayload(copy);
    } else if (key instanceof List<?> list) {
      out.packArrayHeader(list.size());
      for (Object element : list) {
        packKey(out, element);
      }
    } else {
      throw new IllegalArgumentException("not an extra key value: " + key.getClass().getName());
    }
  }

  private static void packOptInt(MessagePacker out, Integer value) throws IOException {
    if (value == null) {
      out.packNil();
    } else {
      out.packInt(value);
    }
  }

  /** The smallest str header for the UTF-8 length, as Python msgpack writes it. */
  private static void packString(MessagePacker out, String value) throws IOException {
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    out.packRawStringHeader(utf8.length);
    out.writePayload(utf8);
  }

  private static void packOptString(MessagePacker out, String value) throws IOException {
    if (value == null) {
      out.packNil();
    } else {
      packString(out, value);
    }
  }
}
