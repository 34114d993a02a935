package io.kvrouter.protocol.msgpack;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import org.msgpack.core.MessageFormat;
import org.msgpack.value.ValueType;

/**
 * Reads msgpack values one by one from a byte array, in place: one instance per input, not
 * thread-safe. The decoders of vLLM's and Dynamo's KV events walk their payloads with it, field by
 * field, and decide themselves what each field may be.
 *
 * <p>It is written for input from the network. Every length header is checked against the bytes
 * left before anything is allocated for it (an array element takes at least one byte, a map entry
 * two), {@link #skip} walks nested values without recursion, and every failure is a {@link
 * MsgpackFormatException} (never an index or arithmetic exception) whose offset is where the value
 * it could not read starts. Integers keep their 64 bits: a uint64 of 2<sup>63</sup> or more comes
 * back as a negative {@code long} with the same bits.
 *
 * <p>Only msgpack-core's format table ({@link MessageFormat}) is used: the bytes are read here.
 * Both decoders wrapped msgpack-core's {@link org.msgpack.core.MessageUnpacker} before; on this
 * reader they decode the same payloads 1.1 to 1.6 times as fast (docs/benchmarks.md, "One msgpack
 * reader for vLLM and Dynamo events").
 */
public final class MsgpackReader {
  private static final VarHandle SHORT =
      MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  /** What {@link #intOrNot} returns when the next value is not an integer in {@code int} range. */
  public static final long NOT_AN_INT = Long.MIN_VALUE;

  private final byte[] input;
  private final int start;
  private final int end;

  /** Index in {@link #input} of the next byte to read. */
  private int next;

  private CharsetDecoder utf8;

  /** A reader of the whole array. */
  public MsgpackReader(byte[] input) {
    this(input, 0, input.length);
  }

  /**
   * A reader of {@code length} bytes of {@code input} from {@code offset}; offsets count from it.
   */
  public MsgpackReader(byte[] input, int offset, int length) {
    Objects.checkFromIndexSize(offset, length, input.length);
    this.input = input;
    this.start = offset;
    this.end = offset + length;
    this.next = offset;
  }

  // ---- position

  /** Where the next value starts, in bytes from the start of the input. */
  public int position() {
    return next - start;
  }

  /** Moves to {@code position} (from {@link #position()}), e.g. to read a value again. */
  public void seek(int position) {
    next = start + Objects.checkIndex(position, end - start + 1);
  }

  /** The bytes not read yet. */
  public int remaining() {
    return end - next;
  }

  // ---- values

  /** The format of the next value, which stays unread. */
  public MessageFormat format() {
    if (next >= end) {
      throw truncated();
    }
    byte b = input[next];
    if (b == (byte) 0xc1) {
      throw new MsgpackFormatException("invalid msgpack byte 0xc1", position());
    }
    return MessageFormat.valueOf(b);
  }

  /** Reads a nil and returns true, or returns false (nothing read) for any other value. */
  public boolean nil() {
    if (format() != MessageFormat.NIL) {
      return false;
    }
    next++;
    return true;
  }

  /** A boolean: {@code true} ({@code c3}) or {@code false} ({@code c2}). */
  public boolean bool() {
    expect(ValueType.BOOLEAN, "a boolean");
    return input[next++] == (byte) 0xc3;
  }

  /**
   * An integer of any form, its 64 bits: a uint64 of 2<sup>63</sup> or more is negative here, as is
   * a negative int64 (check {@link #format()} for {@link MessageFormat#UINT64} beforehand to tell
   * them apart).
   */
  public long integer() {
    return integerOf(expect(ValueType.INTEGER, "an integer"));
  }

  /**
   * The next value if it is an integer within {@code int} range in a form of at most 32 bits, read
   * as {@link #integer} reads it; otherwise (a 64-bit form too) {@link #NOT_AN_INT} with nothing
   * read, so the caller reads the value the general way (and fails as that fails). Token ids are
   * mostly fixints and uint16/uint32, which this reads in one switch on the first byte.
   */
  public long intOrNot() {
    if (next >= end) {
      return NOT_AN_INT;
    }
    byte b = input[next];
    if (b >= -32) { // positive fixint 00-7f, negative fixint e0-ff
      next++;
      return b;
    }
    switch (b) {
      case (byte) 0xcc:
        return input[take(1)] & 0xFF;
      case (byte) 0xcd:
        return Short.toUnsignedInt((short) SHORT.get(input, take(2)));
      case (byte) 0xce:
        if (end - next > 4) {
          int v = (int) INT.get(input, next + 1);
          if (v >= 0) {
            next += 5;
            return v;
          }
        }
        return NOT_AN_INT;
      case (byte) 0xd0:
        return input[take(1)];
      case (byte) 0xd1:
        return (short) SHORT.get(input, take(2));
      case (byte) 0xd2:
        return (int) INT.get(input, take(4));
      default:
        return NOT_AN_INT;
    }
  }

  /**
   * An integer in [0, 2<sup>64</sup>) in any form, as serde reads a {@code u64}: a negative value
   * of a signed form fails, a uint64 of 2<sup>63</sup> or more keeps its bits (negative here).
   */
  public long u64() {
    MessageFormat f = expect(ValueType.INTEGER, "an unsigned 64-bit integer");
    int at = position();
    long value = integerOf(f);
    if (value < 0 && f != MessageFormat.UINT64) {
      throw new MsgpackFormatException(
          value + " is negative, expected an unsigned 64-bit integer", at);
    }
    return value;
  }

  /** A float32 (widened) or float64. */
  public double floating() {
    if (expect(ValueType.FLOAT, "a float") == MessageFormat.FLOAT32) {
      return Float.intBitsToFloat((int) INT.get(input, take(4)));
    }
    return Double.longBitsToDouble((long) LONG.get(input, take(8)));
  }

  /** An array's header: the number of elements that follow. */
  public int arrayHeader() {
    return header(expect(ValueType.ARRAY, "an array"), Sized.ARRAY);
  }

  /** A map's header: the number of entries (key and value) that follow. */
  public int mapHeader() {
    return header(expect(ValueType.MAP, "a map"), Sized.MAP);
  }

  /** A string, which must be valid UTF-8. */
  public String string() {
    MessageFormat f = expect(ValueType.STRING, "a string");
    int at = position();
    int length = header(f, Sized.STRING);
    int from = next;
    next += length;
    if (isAscii(from, length)) {
      // keys, tags and enum names: no decoder needed, and ASCII is valid UTF-8
      return new String(input, from, length, StandardCharsets.ISO_8859_1);
    }
    if (utf8 == null) {
      utf8 = StandardCharsets.UTF_8.newDecoder(); // reports malformed input
    }
    try {
      return utf8.decode(ByteBuffer.wrap(input, from, length)).toString();
    } catch (CharacterCodingException e) {
      throw new MsgpackFormatException("invalid UTF-8 in a string", at);
    }
  }

  /** A bin value's bytes, copied. */
  public byte[] binary() {
    int length = header(expect(ValueType.BINARY, "bin"), Sized.BIN);
    next += length;
    return Arrays.copyOfRange(input, next - length, next);
  }

  /**
   * A map key: its string, or {@code null} when it is not a string (the key is then read, and the
   * caller skips its value). Keys name the fields of the structs both event formats send as maps.
   */
  public String key() {
    if (format().getValueType() != ValueType.STRING) {
      skip(1);
      return null;
    }
    return string();
  }

  /**
   * Reads past {@code count} values of any type, whatever they nest, allocating nothing (none for a
   * count of zero or less).
   */
  public void skip(long count) {
    long left = count;
    while (left > 0) {
      MessageFormat f = format();
      switch (f) {
        case POSFIXINT, NEGFIXINT, NIL, BOOLEAN -> next++;
        case UINT8, INT8 -> take(1);
        case UINT16, INT16 -> take(2);
        case UINT32, INT32, FLOAT32 -> take(4);
        case UINT64, INT64, FLOAT64 -> take(8);
        case FIXARRAY, ARRAY16, ARRAY32 -> left += header(f, Sized.ARRAY);
        case FIXMAP, MAP16, MAP32 -> left += 2L * header(f, Sized.MAP);
        case FIXSTR, STR8, STR16, STR32, BIN8, BIN16, BIN32 -> {
          int length = header(f, Sized.RAW); // moves past the header first
          next += length;
        }
        default -> skipExtension(f);
      }
      left--;
    }
  }

  // ---- internals

  /** What a length header counts, and how a failure names it. */
  private enum Sized {
    ARRAY("an", "array of %d elements", 1),
    MAP("a", "map of %d entries", 2),
    STRING("a", "string of %d bytes", 1),
    BIN("", "bin of %d bytes", 1),
    /** A string or bin that is skipped, not read. */
    RAW("a", "raw value of %d bytes", 1);

    private final String article;
    private final String subject;
    final int bytesPerUnit;

    Sized(String article, String subject, int bytesPerUnit) {
      this.article = article;
      this.subject = subject;
      this.bytesPerUnit = bytesPerUnit;
    }

    String subject(long length) {
      return subject.formatted(length);
    }

    String withArticle(long length) {
      return article.isEmpty() ? subject(length) : article + " " + subject(length);
    }
  }

  private MessageFormat expect(ValueType type, String what) {
    MessageFormat f = format();
    if (f.getValueType() != type) {
      throw new MsgpackTypeException(what, f.getValueType(), position());
    }
    return f;
  }

  /**
   * Reads the header of a container, string or bin of format {@code f} and returns its length,
   * checked to fit in the bytes left after the header.
   */
  private int header(MessageFormat f, Sized sized) {
    int at = position();
    long length =
        switch (f) {
          case FIXARRAY, FIXMAP -> input[next++] & 0x0f;
          case FIXSTR -> input[next++] & 0x1f;
          case STR8, BIN8 -> input[take(1)] & 0xFF;
          case STR16, BIN16, ARRAY16, MAP16 ->
              Short.toUnsignedInt((short) SHORT.get(input, take(2)));
          default -> Integer.toUnsignedLong((int) INT.get(input, take(4))); // the 32-bit forms
        };
    if (length * sized.bytesPerUnit > remaining()) { // also when no int holds the length
      throw tooLong(sized, length, at);
    }
    return (int) length;
  }

  /** The failure of a length header that announces more than the bytes left after it. */
  private MsgpackFormatException tooLong(Sized sized, long length, int at) {
    if (length > Integer.MAX_VALUE) {
      return new MsgpackFormatException(
          "length header too large: " + sized.withArticle(length), at);
    }
    return new MsgpackLengthException(
        sized.withArticle(length), sized.subject(length), remaining(), at);
  }

  private long integerOf(MessageFormat f) {
    return switch (f) {
      case POSFIXINT, NEGFIXINT -> input[next++];
      case UINT8 -> input[take(1)] & 0xFF;
      case UINT16 -> Short.toUnsignedInt((short) SHORT.get(input, take(2)));
      case UINT32 -> Integer.toUnsignedLong((int) INT.get(input, take(4)));
      case INT8 -> input[take(1)];
      case INT16 -> (short) SHORT.get(input, take(2));
      case INT32 -> (int) INT.get(input, take(4));
      default -> (long) LONG.get(input, take(8)); // UINT64, INT64
    };
  }

  /** Skips an extension: its header, its type byte and its data. */
  private void skipExtension(MessageFormat f) {
    int at = position();
    long data =
        switch (f) {
          case EXT8 -> input[take(1)] & 0xFF;
          case EXT16 -> Short.toUnsignedInt((short) SHORT.get(input, take(2)));
          case EXT32 -> Integer.toUnsignedLong((int) INT.get(input, take(4)));
          default -> 1L << ((input[next++] & 0xFF) - 0xd4); // fixext 1 to 16: d4 to d8
        };
    if (1 + data > remaining()) {
      throw new MsgpackFormatException("truncated input", at);
    }
    next += 1 + (int) data;
  }

  /**
   * Reads past the format byte and the {@code size} bytes after it, and returns the index of the
   * first of them.
   *
   * @throws MsgpackFormatException if the input ends before them; nothing is read then
   */
  private int take(int size) {
    if (size >= end - next) {
      throw truncated();
    }
    int first = next + 1;
    next = first + size;
    return first;
  }

  /** The input ends inside the value that starts at {@link #position()}. */
  private MsgpackFormatException truncated() {
    return new MsgpackFormatException("truncated input", position());
  }

  private boolean isAscii(int from, int length) {
    for (int i = from; i < from + length; i++) {
      if (input[i] < 0) {
        return false;
      }
    }
    return true;
  }
}
