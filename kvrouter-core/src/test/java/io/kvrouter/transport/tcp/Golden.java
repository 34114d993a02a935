package io.kvrouter.transport.tcp;

import io.kvrouter.testing.HexFixtures;
import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;

/**
 * Golden byte fixtures of the wire format ({@code src/test/resources/golden/tcp/*.hex}: hex bytes,
 * {@code #} starts a comment) and helpers to lay the same bytes out field by field in a test,
 * independently of the encoders under test.
 */
final class Golden {

  private Golden() {}

  static Buffer load(String name) {
    return Buffer.buffer(HexFixtures.load("/golden/tcp/" + name));
  }

  /** Concatenates fields laid out by {@link #u16}, {@link #u32}, {@link #u64} and {@link #utf8}. */
  static Buffer bytes(byte[]... fields) {
    Buffer out = Buffer.buffer();
    for (byte[] field : fields) {
      out.appendBytes(field);
    }
    return out;
  }

  static byte[] u16(int value) {
    return new byte[] {(byte) (value >>> 8), (byte) value};
  }

  static byte[] u32(long value) {
    return new byte[] {
      (byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value
    };
  }

  static byte[] u64(long value) {
    byte[] bytes = new byte[8];
    for (int i = 0; i < 8; i++) {
      bytes[i] = (byte) (value >>> (56 - 8 * i));
    }
    return bytes;
  }

  static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** A TwoPart frame laid out by hand: lengths, zero checksum, header, body. */
  static Buffer twoPart(String header, String body) {
    byte[] h = utf8(header);
    byte[] b = utf8(body);
    return bytes(u64(h.length), u64(b.length), u64(0), h, b);
  }
}
