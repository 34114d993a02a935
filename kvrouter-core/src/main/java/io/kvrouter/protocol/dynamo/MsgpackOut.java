package io.kvrouter.protocol.dynamo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePacker;

/**
 * Writes msgpack byte for byte as Rust's {@code rmp_serde::to_vec_named} does for the values
 * Dynamo's types hold: unsigned integers in their smallest form (positive fixint, then {@code cc},
 * {@code cd}, {@code ce}, {@code cf}; a {@code long} with the top bit set is a u64 of
 * 2<sup>63</sup> or more, so {@code cf}), strings as fixstr/str8/str16/str32, bytes as
 * bin8/bin16/bin32, None as nil.
 */
final class MsgpackOut {
  private MsgpackOut() {}

  interface Writing {
    void write(MessagePacker out) throws IOException;
  }

  static byte[] write(Writing writing) {
    try (MessageBufferPacker out = MessagePack.newDefaultBufferPacker()) {
      writing.write(out);
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException("msgpack into memory failed", e); // not expected
    }
  }

  static void u64(MessagePacker out, long value) throws IOException {
    if (value >= 0) {
      out.packLong(value); // msgpack-core picks the smallest unsigned form, as rmp does
      return;
    }
    byte[] uint64 = new byte[9];
    uint64[0] = (byte) 0xcf;
    for (int i = 0; i < 8; i++) {
      uint64[1 + i] = (byte) (value >>> (56 - 8 * i));
    }
    out.writePayload(uint64);
  }

  /** A u64 that may be absent: nil for {@code null}. */
  static void optU64(MessagePacker out, Long value) throws IOException {
    if (value == null) {
      out.packNil();
    } else {
      u64(out, value);
    }
  }

  static void string(MessagePacker out, String value) throws IOException {
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    out.packRawStringHeader(utf8.length);
    out.writePayload(utf8);
  }

  static void bin(MessagePacker out, byte[] value) throws IOException {
    out.packBinaryHeader(value.length);
    out.writePayload(value);
  }
}
