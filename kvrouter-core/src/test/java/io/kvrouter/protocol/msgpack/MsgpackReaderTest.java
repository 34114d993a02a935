package io.kvrouter.protocol.msgpack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.value.ValueType;

/**
 * {@link MsgpackReader} on every msgpack format it reads, laid out byte by byte or packed by
 * msgpack-core (not by the reader's own code), and on input that is cut short, of the wrong type,
 * hostile in its length headers or random: each must fail as a {@link MsgpackFormatException} that
 * says where, never as anything else.
 */
class MsgpackReaderTest {

  // ---------------------------------------------------------------- every format

  static Stream<Arguments> integers() {
    return Stream.of(
        integer("00", MessageFormat.POSFIXINT, 0),
        integer("7f", MessageFormat.POSFIXINT, 127),
        integer("e0", MessageFormat.NEGFIXINT, -32),
        integer("ff", MessageFormat.NEGFIXINT, -1),
        integer("cc80", MessageFormat.UINT8, 128),
        integer("ccff", MessageFormat.UINT8, 255),
        integer("cdffff", MessageFormat.UINT16, 65535),
        integer("ceffffffff", MessageFormat.UINT32, 4294967295L),
        integer("cf7fffffffffffffff", MessageFormat.UINT64, Long.MAX_VALUE),
        integer("d080", MessageFormat.INT8, -128),
        integer("d07f", MessageFormat.INT8, 127),
        integer("d18000", MessageFormat.INT16, -32768),
        integer("d280000000", MessageFormat.INT32, Integer.MIN_VALUE),
        integer("d38000000000000000", MessageFormat.INT64, Long.MIN_VALUE),
        integer("d3ffffffffffffffff", MessageFormat.INT64, -1));
  }

  private static Arguments integer(String hex, MessageFormat format, long value) {
    return Arguments.of(hex, format, value);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("integers")
  void integer_readsEveryIntegerFormat(String hex, MessageFormat format, long value) {
    MsgpackReader in = reader(hex);

    assertThat(in.format()).isEqualTo(format);
    assertThat(in.integer()).isEqualTo(value);
    assertThat(in.remaining()).isZero();
  }

  /** intOrNot reads what integer() reads whenever that fits in an int, and nothing otherwise. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("integers")
  void intOrNot_agreesWithInteger(String hex, MessageFormat format, long value) {
    MsgpackReader in = reader(hex);
    long got = in.intOrNot();

    if (value == (int) value && format != MessageFormat.UINT64 && format != MessageFormat.INT64) {
      assertThat(got).isEqualTo(value);
      assertThat(in.remaining()).isZero();
    } else {
      assertThat(got).isEqualTo(MsgpackReader.NOT_AN_INT);
      assertThat(in.position()).isZero();
      assertThat(in.integer()).isEqualTo(value);
    }
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(
      strings = {
        "ce7fffffff", // uint32 of 2^31 - 1: an int
        "ce80000000", // uint32 of 2^31: not an int
        "ce7fffff", // truncated uint32: left to integer() to report
        "d3000000000000002a", // int64 of 42: left to the general path, as integer() reads it
        "a161", // a string
        "c0", // nil
        "c1", // never used
        ""
      })
  void intOrNot_readsNothingButAnIntInRange(String hex) {
    MsgpackReader in = reader(hex);
    long got = in.intOrNot();

    if (hex.equals("ce7fffffff")) {
      assertThat(got).isEqualTo(Integer.MAX_VALUE);
      assertThat(in.remaining()).isZero();
    } else {
      assertThat(got).isEqualTo(MsgpackReader.NOT_AN_INT);
      assertThat(in.position()).isZero();
    }
  }

  @Test
  void intOrNot_truncatedSmallForms_failAsIntegerFails() {
    for (String hex : List.of("cc", "cd00", "d0", "d100", "d2000000")) {
      MsgpackFormatException expected =
          (MsgpackFormatException) catchThrowable(() -> reader(hex).integer());
      MsgpackFormatException got =
          (MsgpackFormatException) catchThrowable(() -> reader(hex).intOrNot());
      assertThat(got).as(hex).isNotNull();
      assertThat(got.getMessage()).as(hex).isEqualTo(expected.getMessage());
      assertThat(got.offset()).as(hex).isEqualTo(expected.offset());
    }
  }

  @Test
  void uint64AboveLongMax_keepsItsBits() {
    for (String unsigned : List.of("9223372036854775808", "18446744073709551615")) {
      byte[] bytes = pack(new BigInteger(unsigned));
      assertThat(hex(bytes)).startsWith("cf");

      assertThat(Long.toUnsignedString(new MsgpackReader(bytes).integer())).isEqualTo(unsigned);
      assertThat(Long.toUnsignedString(new MsgpackReader(bytes).u64())).isEqualTo(unsigned);
      assertThat(new MsgpackReader(bytes).format()).isEqualTo(MessageFormat.UINT64);
    }
  }

  @Test
  void u64_takesEveryNonNegativeForm_andRejectsNegativeSignedOnes() {
    assertThat(reader("d07f").u64()).isEqualTo(127);
    assertThat(reader("d30000000000000009").u64()).isEqualTo(9);
    assertThat(reader("ce80000000").u64()).isEqualTo(0x80000000L);

    assertThatThrownBy(() -> reader("ff").u64())
        .isExactlyInstanceOf(MsgpackFormatException.class)
        .hasMessage("-1 is negative, expected an unsigned 64-bit integer (at byte 0)");
    assertThatThrownBy(() -> reader("d38000000000000000").u64())
        .hasMessageStartingWith("-9223372036854775808 is negative");
  }

  @Test
  void nilBooleansAndFloats() {
    MsgpackReader in = reader("c0" + "c2" + "c3" + "ca3fc00000" + "cb3ff8000000000000" + "01");

    assertThat(in.nil()).isTrue();
    assertThat(in.bool()).isFalse();
    assertThat(in.bool()).isTrue();
    assertThat(in.nil()).isFalse(); // nothing read
    assertThat(in.format()).isEqualTo(MessageFormat.FLOAT32);
    assertThat(in.floating()).isEqualTo(1.5);
    assertThat(in.format()).isEqualTo(MessageFormat.FLOAT64);
    assertThat(in.floating()).isEqualTo(1.5);
    assertThat(in.nil()).isFalse();
    assertThat(in.integer()).isEqualTo(1);
  }

  @Test
  void strings_inEveryFormat_asciiAndUtf8() {
    String utf8 = "médium-✓ 😀";
    for (String s : List.of("", "a", "x".repeat(31), "x".repeat(32), "y".repeat(256), utf8)) {
      assertThat(new MsgpackReader(pack(s)).string()).isEqualTo(s);
    }
    assertThat(reader("a3616263").string()).isEqualTo("abc"); // fixstr
    assertThat(reader("d903616263").string()).isEqualTo("abc"); // str8
    assertThat(reader("da0003616263").string()).isEqualTo("abc"); // str16
    assertThat(reader("db00000003616263").string()).isEqualTo("abc"); // str32
    assertThat(new MsgpackReader(pack("z".repeat(70_000))).string()).hasSize(70_000);
  }

  @Test
  void binary_inEveryFormat_isACopy() {
    byte[] bytes = hexBytes("c4020102" + "c500020304" + "c6000000020506" + "c400");
    MsgpackReader in = new MsgpackReader(bytes);

    byte[] first = in.binary();
    Arrays.fill(bytes, 2, 4, (byte) 0);

    assertThat(first).containsExactly(1, 2);
    assertThat(in.binary()).containsExactly(3, 4);
    assertThat(in.binary()).containsExactly(5, 6);
    assertThat(in.binary()).isEmpty();
    assertThat(new MsgpackReader(pack(new byte[300])).binary()).hasSize(300);
  }

  @Test
  void containerHeaders_inEveryFormat() {
    assertThat(reader("92" + "0102").arrayHeader()).isEqualTo(2);
    assertThat(reader("dc0002" + "0102").arrayHeader()).isEqualTo(2);
    assertThat(reader("dd00000002" + "0102").arrayHeader()).isEqualTo(2);
    assertThat(reader("81" + "0102").mapHeader()).isEqualTo(1);
    assertThat(reader("de0001" + "0102").mapHeader()).isEqualTo(1);
    assertThat(reader("df00000001" + "0102").mapHeader()).isEqualTo(1);
    assertThat(reader("90").arrayHeader()).isZero();
    assertThat(reader("80").mapHeader()).isZero();
  }

  @Test
  void key_isTheStringOrNullWithTheKeyRead() {
    MsgpackReader in = reader("82" + "a174" + "01" + "92c0c3" + "02");

    assertThat(in.mapHeader()).isEqualTo(2);
    assertThat(in.key()).isEqualTo("t");
    assertThat(in.integer()).isEqualTo(1);
    assertThat(in.key()).isNull(); // the array [nil, true] as a key
    assertThat(in.integer()).isEqualTo(2);
    assertThat(in.remaining()).isZero();
  }

  /** One value of every format, nested in an array: {@link #skip} must land right after it. */
  static final String EVERY_FORMAT =
      "dc0021" // 33 elements
          + "c0"
          + "c2"
          + "c3"
          + "05"
          + "e0"
          + "cc80"
          + "cd0100"
          + "ce00010000"
          + "cfffffffffffffffff"
          + "d0ff"
          + "d1ff00"
          + "d2ff000000"
          + "d3ff00000000000000"
          + "ca3fc00000"
          + "cb3ff8000000000000"
          + "a161"
          + "d90162"
          + "da000163"
          + "db0000000164"
          + "c40101"
          + "c5000102"
          + "c6000000010c"
          + "d40101"
          + "d5010102"
          + "d60101020304"
          + "d7010102030405060708"
          + "d801"
          + "00".repeat(16)
          + "c70201aabb"
          + "c8000201aabb"
          + "c90000000201aabb"
          + "9101"
          + "81a16b"
          + "de0001a16ba176"
          + "dd00000000";

  @Test
  void skip_readsPastOneValueOfEveryFormat() {
    MsgpackReader in = reader(EVERY_FORMAT + "2a");

    in.skip(1);

    assertThat(in.position()).isEqualTo(hexBytes(EVERY_FORMAT).length);
    assertThat(in.integer()).isEqualTo(42);
  }

  @Test
  void skip_ofSeveralValues_andOfNone() {
    MsgpackReader in = reader("01" + "a26162" + "9102" + "03");

    in.skip(0);
    in.skip(-1);
    assertThat(in.position()).isZero();
    in.skip(3);
    assertThat(in.integer()).isEqualTo(3);
  }

  @Test
  void skip_deeplyNestedValuesWithoutRecursion() {
    int depth = 200_000;
    byte[] nested = new byte[depth + 1];
    Arrays.fill(nested, 0, depth, (byte) 0x91); // [[[[...[nil]...]]]]
    nested[depth] = (byte) 0xc0;

    MsgpackReader in = new MsgpackReader(nested);
    in.skip(1);

    assertThat(in.remaining()).isZero();
  }

  // ---------------------------------------------------------------- position

  @Test
  void aReaderOfPartOfAnArray_countsOffsetsFromItsStart() {
    byte[] bytes = hexBytes("ffff" + "92" + "a161" + "c1" + "ffff");
    MsgpackReader in = new MsgpackReader(bytes, 2, 4);

    assertThat(in.remaining()).isEqualTo(4);
    assertThat(in.arrayHeader()).isEqualTo(2);
    assertThat(in.position()).isEqualTo(1);
    assertThat(in.string()).isEqualTo("a");
    Throwable thrown = catchThrowable(in::format);

    assertThat(thrown).hasMessage("invalid msgpack byte 0xc1 (at byte 3)");
    in.skip(0);
    assertThat(in.remaining()).isEqualTo(1);
  }

  @Test
  void aReaderStopsAtTheEndOfItsPart() {
    MsgpackReader in = new MsgpackReader(hexBytes("01" + "02"), 0, 1);

    assertThat(in.integer()).isEqualTo(1);
    assertThatThrownBy(in::format).hasMessage("truncated input (at byte 1)");
  }

  @Test
  void seek_readsAValueAgain() {
    MsgpackReader in = reader("a161" + "a162");
    in.skip(1);
    int second = in.position();

    assertThat(in.string()).isEqualTo("b");
    in.seek(0);
    assertThat(in.string()).isEqualTo("a");
    in.seek(second);
    assertThat(in.string()).isEqualTo("b");
    assertThatThrownBy(() -> in.seek(5)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  // ---------------------------------------------------------------- malformed

  @Test
  void truncatedAtEveryOffset_failsAsFormatError_whateverReadsIt() {
    byte[] value = hexBytes(EVERY_FORMAT);
    List<Function<MsgpackReader, Object>> reads =
        List.of(
            in -> {
              in.skip(1);
              return null;
            },
            MsgpackReaderTest::readEverything);
    for (Function<MsgpackReader, Object> read : reads) {
      assertThat(read.apply(new MsgpackReader(value))).as("the whole value").isNull();
      for (int len = 0; len < value.length; len++) {
        MsgpackReader in = new MsgpackReader(Arrays.copyOf(value, len));
        Throwable thrown = catchThrowable(() -> read.apply(in));
        assertThat(thrown).as("prefix of %d bytes", len).isInstanceOf(MsgpackFormatException.class);
        MsgpackFormatException e = (MsgpackFormatException) thrown;
        assertThat(e.offset()).as("prefix of %d bytes", len).isBetween(0, len);
      }
    }
  }

  /** Reads {@link #EVERY_FORMAT} value by value with the typed reads. */
  private static Object readEverything(MsgpackReader in) {
    int n = in.arrayHeader();
    for (int i = 0; i < n; i++) {
      switch (in.format().getValueType()) {
        case NIL -> in.nil();
        case BOOLEAN -> in.bool();
        case INTEGER -> in.integer();
        case FLOAT -> in.floating();
        case STRING -> in.string();
        case BINARY -> in.binary();
        case ARRAY -> in.skip(1);
        case MAP -> {
          int entries = in.mapHeader();
          for (int k = 0; k < entries; k++) {
            in.key();
            in.skip(1);
          }
        }
        default -> in.skip(1);
      }
    }
    return null;
  }

  static Stream<Arguments> wrongTypes() {
    return Stream.of(
        wrong("a string", MsgpackReader::string, "01", ValueType.INTEGER),
        wrong("an integer", MsgpackReader::integer, "a161", ValueType.STRING),
        wrong("an integer", MsgpackReader::integer, "ca3fc00000", ValueType.FLOAT),
        wrong("an unsigned 64-bit integer", MsgpackReader::u64, "c0", ValueType.NIL),
        wrong("a float", MsgpackReader::floating, "01", ValueType.INTEGER),
        wrong("a boolean", MsgpackReader::bool, "c0", ValueType.NIL),
        wrong("bin", MsgpackReader::binary, "a161", ValueType.STRING),
        wrong("an array", MsgpackReader::arrayHeader, "80", ValueType.MAP),
        wrong("a map", MsgpackReader::mapHeader, "90", ValueType.ARRAY),
        wrong("a map", MsgpackReader::mapHeader, "d40100", ValueType.EXTENSION));
  }

  private static Arguments wrong(
      String expected, Function<MsgpackReader, Object> read, String hex, ValueType found) {
    return Arguments.of(expected, read, hex, found);
  }

  @ParameterizedTest(name = "{0} from {2}")
  @MethodSource("wrongTypes")
  void wrongType_failsNamingBothTypes_andReadsNothing(
      String expected, Function<MsgpackReader, Object> read, String hex, ValueType found) {
    MsgpackReader in = reader("c0" + hex);
    in.nil();

    Throwable thrown = catchThrowable(() -> read.apply(in));

    assertThat(thrown)
        .isExactlyInstanceOf(MsgpackTypeException.class)
        .hasMessage(
            "expected " + expected + ", got " + found.name().toLowerCase() + " (at byte 1)");
    MsgpackTypeException e = (MsgpackTypeException) thrown;
    assertThat(e.expected()).isEqualTo(expected);
    assertThat(e.found()).isEqualTo(found);
    assertThat(e.offset()).isEqualTo(1);
    assertThat(in.position()).isEqualTo(1);
  }

  static Stream<Arguments> hostileLengths() {
    return Stream.of(
        length(MsgpackReader::arrayHeader, "dd7fffffff" + "00", "array of 2147483647 elements", 1),
        length(MsgpackReader::arrayHeader, "dc0003" + "0000", "array of 3 elements", 2),
        length(MsgpackReader::mapHeader, "df40000000" + "00", "map of 1073741824 entries", 1),
        length(MsgpackReader::mapHeader, "82" + "000000", "map of 2 entries", 3),
        length(MsgpackReader::string, "db7fffffff", "string of 2147483647 bytes", 0),
        length(MsgpackReader::string, "a3" + "6162", "string of 3 bytes", 2),
        length(MsgpackReader::binary, "c67fffffff", "bin of 2147483647 bytes", 0),
        length(MsgpackReader::key, "d9ff", "string of 255 bytes", 0),
        length(in -> skipOne(in), "c5ffff", "raw value of 65535 bytes", 0),
        length(in -> skipOne(in), "9301" + "db00000009", "raw value of 9 bytes", 0));
  }

  private static Arguments length(
      Function<MsgpackReader, Object> read, String hex, String subject, int left) {
    return Arguments.of(subject, read, hex, left);
  }

  private static Object skipOne(MsgpackReader in) {
    in.skip(1);
    return null;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hostileLengths")
  void lengthLongerThanTheInput_failsAtTheHeader(
      String subject, Function<MsgpackReader, Object> read, String hex, int left) {
    Throwable thrown = catchThrowable(() -> read.apply(reader(hex)));

    assertThat(thrown).isExactlyInstanceOf(MsgpackLengthException.class);
    MsgpackLengthException e = (MsgpackLengthException) thrown;
    assertThat(e.subject()).isEqualTo(subject);
    assertThat(e.left()).isEqualTo(left);
    assertThat(e.problem()).endsWith(subject + " cannot fit in the " + left + " bytes left");
  }

  @Test
  void lengthMessages_haveTheirArticle() {
    assertThatThrownBy(() -> reader("dd7fffffff00").arrayHeader())
        .hasMessage("an array of 2147483647 elements cannot fit in the 1 bytes left (at byte 0)");
    assertThatThrownBy(() -> reader("df0fffffff").mapHeader())
        .hasMessage("a map of 268435455 entries cannot fit in the 0 bytes left (at byte 0)");
    assertThatThrownBy(() -> reader("c403").binary())
        .hasMessage("bin of 3 bytes cannot fit in the 0 bytes left (at byte 0)");
  }

  @Test
  void lengthHeaderOf2To31OrMore_isTooLargeForAnyArray() {
    assertThatThrownBy(() -> reader("dd80000000").arrayHeader())
        .isExactlyInstanceOf(MsgpackFormatException.class)
        .hasMessage("length header too large: an array of 2147483648 elements (at byte 0)");
    assertThatThrownBy(() -> reader("dfffffffff").mapHeader())
        .hasMessageStartingWith("length header too large: a map of 4294967295 entries");
    assertThatThrownBy(() -> reader("c680000000").binary())
        .hasMessageStartingWith("length header too large: bin of 2147483648 bytes");
    assertThatThrownBy(() -> reader("db80000000").skip(1))
        .hasMessageStartingWith("length header too large: a raw value of 2147483648 bytes");
  }

  @Test
  void extensionLongerThanTheInput_isTruncated() {
    assertThatThrownBy(() -> reader("c97fffffff01").skip(1))
        .isExactlyInstanceOf(MsgpackFormatException.class)
        .hasMessage("truncated input (at byte 0)");
    assertThatThrownBy(() -> reader("d801" + "00".repeat(15)).skip(1))
        .hasMessage("truncated input (at byte 0)");
  }

  @Test
  void byteC1_isInvalidWhereverItIs() {
    assertThatThrownBy(() -> reader("c1").format())
        .isExactlyInstanceOf(MsgpackFormatException.class)
        .hasMessage("invalid msgpack byte 0xc1 (at byte 0)");
    assertThatThrownBy(() -> reader("c1").nil()).hasMessageStartingWith("invalid msgpack byte");
    assertThatThrownBy(() -> reader("92" + "01" + "c1").skip(1))
        .hasMessage("invalid msgpack byte 0xc1 (at byte 2)");
  }

  @Test
  void invalidUtf8_failsAtTheString() {
    assertThatCode(() -> reader("a2c328").skip(1)).doesNotThrowAnyException(); // not decoded
    MsgpackReader in = reader("01" + "a2c328");
    in.integer();

    assertThatThrownBy(in::string)
        .isExactlyInstanceOf(MsgpackFormatException.class)
        .hasMessage("invalid UTF-8 in a string (at byte 1)");
    assertThatThrownBy(() -> reader("a1ff").key()).hasMessageStartingWith("invalid UTF-8");
  }

  @Test
  void emptyInput_isTruncated() {
    assertThatThrownBy(() -> new MsgpackReader(new byte[0]).arrayHeader())
        .isExactlyInstanceOf(MsgpackFormatException.class)
        .hasMessage("truncated input (at byte 0)");
  }

  @Test
  void randomBytes_readOrFailAsFormatError() {
    Random random = new Random(2026);
    byte[] starts = hexBytes("9293dcdddedf80c0cbcac4c5c6d9dadbc7c8c9d4d8cf");
    for (int round = 0; round < 50_000; round++) {
      byte[] bytes = new byte[random.nextInt(24)];
      random.nextBytes(bytes);
      if (bytes.length > 0 && random.nextBoolean()) {
        bytes[0] = starts[random.nextInt(starts.length)];
      }
      for (Function<MsgpackReader, Object> read :
          List.<Function<MsgpackReader, Object>>of(
              MsgpackReaderTest::skipOne, MsgpackReaderTest::readEverything)) {
        Throwable thrown = catchThrowable(() -> read.apply(new MsgpackReader(bytes)));
        if (thrown != null) {
          assertThat(thrown).as(hex(bytes)).isInstanceOf(MsgpackFormatException.class);
        }
      }
    }
  }

  // ---------------------------------------------------------------- helpers

  private static MsgpackReader reader(String hex) {
    return new MsgpackReader(hexBytes(hex));
  }

  private static byte[] hexBytes(String hex) {
    return HexFormat.of().parseHex(hex);
  }

  private static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  /** msgpack-core's own encoding of a string, bin or big integer, in its smallest form. */
  private static byte[] pack(Object value) {
    try (MessageBufferPacker out = MessagePack.newDefaultBufferPacker()) {
      if (value instanceof String s) {
        out.packString(s);
      } else if (value instanceof byte[] bytes) {
        out.packBinaryHeader(bytes.length);
        out.writePayload(bytes);
      } else {
        out.packBigInteger((BigInteger) value);
      }
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
