package io.kvrouter.protocol.dynamo;

import io.kvrouter.protocol.msgpack.MsgpackFormatException;
import io.kvrouter.protocol.msgpack.MsgpackReader;
import java.util.function.Function;
import org.msgpack.value.ValueType;

/**
 * The msgpack that Rust's {@code rmp_serde} writes for Dynamo's serde types, read strictly through
 * a {@link MsgpackReader}: one instance per buffer, not thread-safe. Every read names the path it
 * is reading ({@code "[2].event.data.stored.blocks[0].tokens_hash"}), and every failure, its own or
 * the reader's (truncation, the never-used byte {@code 0xc1}, a hostile length header), becomes a
 * {@link DynamoEventFormatException} whose message starts with that path; {@code $} is the root.
 */
final class MsgpackIn {
  private final MsgpackReader in;

  /** The path of the value being read, for a failure of the reader. */
  private String path = "";

  private MsgpackIn(byte[] buffer, int offset, int length) {
    this.in = new MsgpackReader(buffer, offset, length);
  }

  /**
   * What {@code decoder} reads from {@code length} bytes of {@code buffer} from {@code offset}.
   *
   * @throws DynamoEventFormatException if they are not what it reads, naming the path
   */
  static <T> T decode(byte[] buffer, int offset, int length, Function<MsgpackIn, T> decoder) {
    MsgpackIn in = new MsgpackIn(buffer, offset, length);
    try {
      return decoder.apply(in);
    } catch (MsgpackFormatException e) {
      throw new DynamoEventFormatException(
          named(in.path) + ": " + e.problem() + " (at byte " + e.offset() + ")", e);
    }
  }

  /** {@link #decode(byte[], int, int, Function)} of the whole buffer. */
  static <T> T decode(byte[] buffer, Function<MsgpackIn, T> decoder) {
    return decode(buffer, 0, buffer.length, decoder);
  }

  /** What the next value is. */
  ValueType peek(String path) {
    return reading(path).format().getValueType();
  }

  /** Consumes a nil and returns true, or returns false (nothing read) for any other value. */
  boolean nil(String path) {
    return reading(path).nil();
  }

  int mapHeader(String path) {
    return reading(path).mapHeader();
  }

  int arrayHeader(String path) {
    return reading(path).arrayHeader();
  }

  /**
   * A map key: its string, or {@code null} when it is not a string (the key is then consumed and
   * the caller skips the value). serde's derived structs know their fields by name only here.
   */
  String key(String path) {
    return reading(path).key();
  }

  /** A boolean. */
  boolean bool(String path) {
    return reading(path).bool();
  }

  /** A UTF-8 string (fixstr, str8, str16 or str32). */
  String string(String path) {
    return reading(path).string();
  }

  /** A bin value's bytes (bin8, bin16 or bin32), copied. */
  byte[] bin(String path) {
    return reading(path).binary();
  }

  /**
   * A u64 as serde reads one: any msgpack integer form whose value is in [0, 2<sup>64</sup>);
   * values of 2<sup>63</sup> and above (uint64, {@code cf}) keep their bits in the {@code long}.
   */
  long u64(String path) {
    return reading(path).u64();
  }

  /** A u32 that must also fit a Java {@code int}: [0, 2<sup>31</sup>). */
  int u31(String path) {
    long value = u64(path);
    if (value < 0 || value > Integer.MAX_VALUE) {
      throw fail(path, Long.toUnsignedString(value) + " is outside 0.." + Integer.MAX_VALUE);
    }
    return (int) value;
  }

  /** Skips one value of any type. */
  void skip(String path) {
    reading(path).skip(1);
  }

  /** Fails unless every byte has been read. */
  void end(String path) {
    int left = in.remaining();
    if (left != 0) {
      throw fail(path, left + " trailing bytes after the value");
    }
  }

  /** {@code path.field}, or {@code field} at the root. */
  static String at(String path, String field) {
    return path.isEmpty() ? field : path + "." + field;
  }

  DynamoEventFormatException fail(String path, String what) {
    return new DynamoEventFormatException(
        named(path) + ": " + what + " (at byte " + in.position() + ")");
  }

  private MsgpackReader reading(String path) {
    this.path = path;
    return in;
  }

  private static String named(String path) {
    return path.isEmpty() ? "$" : path;
  }
}
