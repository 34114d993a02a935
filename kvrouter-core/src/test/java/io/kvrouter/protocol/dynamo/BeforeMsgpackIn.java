package io.kvrouter.protocol.dynamo;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessageInsufficientBufferException;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * A strict reader of the msgpack that Rust's {@code rmp_serde} writes for Dynamo's serde types: one
 * instance per buffer, not thread-safe. Every read names the path it is reading ({@code
 * "[2].event.data.stored.blocks[0].tokens_hash"}), and every failure, its own or msgpack-core's
 * (truncation, the never-used byte {@code 0xc1}), becomes a {@link DynamoEventFormatException}
 * whose message starts with that path.
 *
 * <p>Container headers are checked against the bytes left before anything is allocated for them (an
 * element takes at least one byte), so a hostile header fails at once.
 */
final class BeforeMsgpackIn {
  private final byte[] buffer;
  private final int end;
  private final MessageUnpacker in;
  private final int base;

  BeforeMsgpackIn(byte[] buffer, int offset, int length) {
    this.buffer = buffer;
    this.base = offset;
    this.end = offset + length;
    this.in = MessagePack.newDefaultUnpacker(buffer, offset, length);
  }

  BeforeMsgpackIn(byte[] buffer) {
    this(buffer, 0, buffer.length);
  }

  /** What the next value is. */
  ValueType peek(String path) {
    return format(path).getValueType();
  }

  /** Consumes a nil and returns true, or returns false (nothing read) for any other value. */
  boolean nil(String path) {
    if (format(path) != MessageFormat.NIL) {
      return false;
    }
    return call(
        path,
        () -> {
          in.unpackNil();
          return true;
        });
  }

  int mapHeader(String path) {
    expect(path, ValueType.MAP, "a map");
    int n = call(path, in::unpackMapHeader);
    need(path, 2L * n, "a map of " + n + " entries");
    return n;
  }

  int arrayHeader(String path) {
    expect(path, ValueType.ARRAY, "an array");
    int n = call(path, in::unpackArrayHeader);
    need(path, n, "an array of " + n + " elements");
    return n;
  }

  /**
   * A map key: its string, or {@code null} when it is not a string (the key is then consumed and
   * the caller skips the value). serde's derived structs know their fields by name only here.
   */
  String key(String path) {
    if (peek(path) != ValueType.STRING) {
      skip(path);
      return null;
    }
    return string(path);
  }

  /** A UTF-8 string (fixstr, str8, str16 or str32). */
  String string(String path) {
    expect(path, ValueType.STRING, "a string");
    int len = call(path, in::unpackRawStringHeader);
    need(path, len, "a string of " + len + " bytes");
    int start = position();
    skipRaw(path, len);
    if (isAscii(start, len)) {
      // keys and enum names: no decoder needed, and ASCII is valid UTF-8
      return new String(buffer, start, len, StandardCharsets.ISO_8859_1);
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .decode(ByteBuffer.wrap(buffer, start, len))
          .toString();
    } catch (CharacterCodingException e) {
      throw fail(path, "invalid UTF-8 in a string");
    }
  }

  private boolean isAscii(int start, int len) {
    for (int i = start; i < start + len; i++) {
      if (buffer[i] < 0) {
        return false;
      }
    }
    return true;
  }

  /** A bin value's bytes (bin8, bin16 or bin32), copied. */
  byte[] bin(String path) {
    expect(path, ValueType.BINARY, "bin");
    int len = call(path, in::unpackBinaryHeader);
    need(path, len, "bin of " + len + " bytes");
    int start = position();
    skipRaw(path, len);
    return Arrays.copyOfRange(buffer, start, start + len);
  }

  /**
   * A u64 as serde reads one: any msgpack integer form whose value is in [0, 2<sup>64</sup>);
   * values of 2<sup>63</sup> and above (uint64, {@code cf}) keep their bits in the {@code long}.
   */
  long u64(String path) {
    MessageFormat f = format(path);
    if (f.getValueType() != ValueType.INTEGER) {
      throw wrongType(path, "an unsigned 64-bit integer", f);
    }
    if (f == MessageFormat.UINT64) {
      // 0xcf and 8 big-endian bytes, the bits kept as they are (half of all hashes are >= 2^63)
      int at = position();
      need(path, 9, "a uint64");
      long bits = 0;
      for (int i = 1; i <= 8; i++) {
        bits = (bits << 8) | (buffer[at + i] & 0xFF);
      }
      skipRaw(path, 9);
      return bits;
    }
    long value = call(path, in::unpackLong);
    if (value < 0) {
      throw fail(path, value + " is negative, expected an unsigned 64-bit integer");
    }
    return value;
  }

  /** A u32 that must also fit a Java {@code int}: [0, 2<sup>31</sup>). */
  int u31(String path) {
    long value = u64(path);
    if (value < 0 || value > Integer.MAX_VALUE) {
      throw fail(path, Long.toUnsignedString(value) + " is outside 0.." + Integer.MAX_VALUE);
    }
    return (int) value;
  }

  /**
   * Skips one value of any type without allocating for it. msgpack-core's own skip is not used for
   * containers: a map header of 2<sup>30</sup>+ entries would overflow its counter.
   */
  void skip(String path) {
    long count = 1;
    while (count > 0) {
      MessageFormat f = format(path);
      switch (f.getValueType()) {
        case ARRAY -> count += arrayHeader(path);
        case MAP -> count += 2L * mapHeader(path);
        case STRING, BINARY -> {
          int len =
              f.getValueType() == ValueType.STRING
                  ? call(path, in::unpackRawStringHeader)
                  : call(path, in::unpackBinaryHeader);
          need(path, len, "a value of " + len + " bytes");
          skipRaw(path, len);
        }
        default ->
            call(
                path,
                () -> {
                  in.skipValue(); // scalars and extensions: it checks their length itself
                  return null;
                });
      }
      count--;
    }
  }

  /** Fails unless every byte has been read. */
  void end(String path) {
    int left = end - position();
    if (left != 0) {
      throw fail(path, left + " trailing bytes after the value");
    }
  }

  /** {@code path.field}, or {@code field} at the root. */
  static String at(String path, String field) {
    return path.isEmpty() ? field : path + "." + field;
  }

  // ---- internals ----

  private interface Read<T> {
    T read() throws IOException;
  }

  private <T> T call(String path, Read<T> read) {
    try {
      return read.read();
    } catch (MessageInsufficientBufferException e) {
      throw fail(path, "truncated input");
    } catch (MessagePackException e) {
      throw fail(path, "malformed msgpack: " + e.getMessage());
    } catch (IOException e) {
      throw fail(path, "unreadable msgpack: " + e.getMessage());
    }
  }

  private MessageFormat format(String path) {
    if (position() >= end) {
      throw fail(path, "truncated input, expected a value");
    }
    MessageFormat f = call(path, in::getNextFormat);
    if (f == MessageFormat.NEVER_USED) {
      throw fail(path, "invalid msgpack byte 0xc1");
    }
    return f;
  }

  private void expect(String path, ValueType type, String what) {
    MessageFormat f = format(path);
    if (f.getValueType() != type) {
      throw wrongType(path, what, f);
    }
  }

  private void skipRaw(String path, int len) {
    if (len > 0) {
      call(path, () -> in.readPayloadAsReference(len));
    }
  }

  private void need(String path, long bytes, String what) {
    int left = end - position();
    if (bytes > left) {
      throw fail(path, what + " cannot fit in the " + left + " bytes left");
    }
  }

  private int position() {
    return base + (int) in.getTotalReadBytes();
  }

  DynamoEventFormatException fail(String path, String what) {
    return new DynamoEventFormatException(
        (path.isEmpty() ? "$" : path) + ": " + what + " (at byte " + (position() - base) + ")");
  }

  private DynamoEventFormatException wrongType(String path, String expected, MessageFormat got) {
    return fail(path, "expected " + expected + ", got " + describe(got));
  }

  private static String describe(MessageFormat f) {
    return f == MessageFormat.NIL ? "nil" : f.getValueType().name().toLowerCase();
  }
}
