package io.kvrouter.protocol.dynamo;

import io.kvrouter.testing.HexFixtures;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePacker;

/**
 * The golden fixtures of {@code src/test/resources/golden/dynamo-e3/} (hex, {@code #} comments),
 * and a msgpack builder for the inputs the tests craft: it packs plain Java values with
 * msgpack-core directly, not through the codecs under test.
 */
final class E3Golden {
  private E3Golden() {}

  static byte[] load(String name) {
    return HexFixtures.load("/golden/dynamo-e3/" + name);
  }

  /** A frame's envelope bytes (after the 5-byte header). */
  static byte[] envelopeOf(byte[] frame) {
    return Arrays.copyOfRange(frame, EventEnvelopeCodec.FRAME_HEADER_BYTES, frame.length);
  }

  /** A map of the given keys and values, in that order. */
  static Map<Object, Object> map(Object... keysAndValues) {
    Map<Object, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return map;
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  /** A u64 given by its bits: packed as uint64 when the top bit is set. */
  record U64(long bits) {}

  /** Bytes copied into the output as they are. */
  record Raw(byte[] bytes) {}

  /**
   * msgpack of a value: {@code null} nil, {@link Map} map (in its iteration order), {@link List}
   * array, {@link String} str, {@link Number} int (smallest form), {@link U64}, {@code byte[]} bin,
   * {@link Boolean}, {@link Double}, {@link Raw}.
   */
  static byte[] pack(Object value) {
    try (MessageBufferPacker out = MessagePack.newDefaultBufferPacker()) {
      pack(out, value);
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void pack(MessagePacker out, Object value) throws IOException {
    if (value == null) {
      out.packNil();
    } else if (value instanceof Map<?, ?> map) {
      out.packMapHeader(map.size());
      for (Map.Entry<?, ?> e : map.entrySet()) {
        pack(out, e.getKey());
        pack(out, e.getValue());
      }
    } else if (value instanceof List<?> list) {
      out.packArrayHeader(list.size());
      for (Object element : list) {
        pack(out, element);
      }
    } else if (value instanceof String s) {
      out.packString(s);
    } else if (value instanceof U64 u) {
      out.packBigInteger(new BigInteger(Long.toUnsignedString(u.bits())));
    } else if (value instanceof Double d) {
      out.packDouble(d);
    } else if (value instanceof Number n) {
      out.packLong(n.longValue());
    } else if (value instanceof Boolean b) {
      out.packBoolean(b);
    } else if (value instanceof byte[] bytes) {
      out.packBinaryHeader(bytes.length);
      out.writePayload(bytes);
    } else if (value instanceof Raw raw) {
      out.writePayload(raw.bytes());
    } else {
      throw new IllegalArgumentException("cannot pack " + value.getClass());
    }
  }
}
