package io.kvrouter.protocol.dynamo;

import static io.kvrouter.protocol.dynamo.E3Golden.concat;
import static io.kvrouter.protocol.dynamo.E3Golden.map;
import static io.kvrouter.protocol.dynamo.E3Golden.pack;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.protocol.dynamo.E3Golden.U64;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link EventEnvelopeCodec}: the notes' worked example byte for byte (frames 0 to 2 laid out here,
 * frame 3 from {@code golden/dynamo-e3}), the envelope's tolerant reading, and every way a frame or
 * a message can be malformed.
 */
class EventEnvelopeCodecTest {
  private static final long PUBLISHED_AT = 1_700_000_000_000L;

  private static final HexFormat HEX = HexFormat.of();

  /** The example's envelope: the payload is the frame's last 154 (or 155, 179) bytes. */
  private static EventEnvelope example(byte[] frame, int payloadBytes) {
    byte[] payload = Arrays.copyOfRange(frame, frame.length - payloadBytes, frame.length);
    return new EventEnvelope(1, 0, PUBLISHED_AT, "kv-events", payload);
  }

  static Stream<Arguments> goldenFrames() {
    return Stream.of(
        Arguments.of("s1_frame.hex", 154, "01000000e3"),
        Arguments.of("s2_batch_frame.hex", 155, "01000000e4"),
        Arguments.of("s3_batch_frame.hex", 179, "01000000fc"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("goldenFrames")
  void goldenFrame_decodesAndIsWhatEncodeFrameWrites(String fixture, int payload, String header) {
    byte[] frame = E3Golden.load(fixture);
    EventEnvelope expected = example(frame, payload);

    assertThat(HEX.formatHex(frame, 0, 5)).isEqualTo(header);
    assertThat(EventEnvelopeCodec.decodeFrame(frame)).isEqualTo(expected);
    assertThat(EventEnvelopeCodec.encodeFrame(expected)).isEqualTo(frame);
    assertThat(EventEnvelopeCodec.encodeEnvelope(expected)).isEqualTo(E3Golden.envelopeOf(frame));
    assertThat(EventEnvelopeCodec.decodeEnvelope(E3Golden.envelopeOf(frame))).isEqualTo(expected);
  }

  @Test
  void workedExample_isTheseFourFrames() {
    byte[] frame = E3Golden.load("s1_frame.hex");
    EventEnvelope envelope = example(frame, 154);
    List<byte[]> frames = EventEnvelopeCodec.encodeMessage(envelope);

    assertThat(frames).hasSize(4);
    assertThat(HEX.formatHex(frames.get(0))).isEqualTo("6b762d6576656e7473");
    assertThat(HEX.formatHex(frames.get(1))).isEqualTo("0000000000000001");
    assertThat(HEX.formatHex(frames.get(2))).isEqualTo("0000000000000000");
    assertThat(frames.get(3)).isEqualTo(frame).hasSize(5 + 227);
    assertThat(EventEnvelopeCodec.decodeMessage(frames)).isEqualTo(envelope);
  }

  @Test
  void u64Fields_keepTheirBits_inTheEnvelopeAndTheFrames() {
    EventEnvelope envelope = new EventEnvelope(-1L, Long.MIN_VALUE, 0, "t", new byte[0]);

    List<byte[]> frames = EventEnvelopeCodec.encodeMessage(envelope);

    assertThat(HEX.formatHex(frames.get(1))).isEqualTo("ffffffffffffffff");
    assertThat(HEX.formatHex(frames.get(2))).isEqualTo("8000000000000000");
    assertThat(HEX.formatHex(EventEnvelopeCodec.encodeEnvelope(envelope)))
        .contains("ac7075626c69736865725f6964" + "cfffffffffffffffff")
        .endsWith("a77061796c6f6164" + "c400"); // "payload": bin8 of 0 bytes
    assertThat(EventEnvelopeCodec.decodeMessage(frames)).isEqualTo(envelope);
  }

  @ParameterizedTest(name = "payload of {0} bytes")
  @ValueSource(ints = {255, 256, 65_535, 65_536})
  void largePayloadsAndLongTopics_useTheWiderForms(int size) {
    byte[] payload = new byte[size];
    Arrays.fill(payload, (byte) 7);
    String topic = "namespace.dynamo.component.backend.endpoint.kv_state.kv-events"; // str8
    EventEnvelope envelope = new EventEnvelope(3, 4, 5, topic, payload);

    byte[] bytes = EventEnvelopeCodec.encodeEnvelope(envelope);

    assertThat(bytes)
        .isEqualTo(
            pack(
                map(
                    "publisher_id",
                    3,
                    "sequence",
                    4,
                    "published_at",
                    5,
                    "topic",
                    topic,
                    "payload",
                    payload)));
    assertThat(EventEnvelopeCodec.decodeFrame(EventEnvelopeCodec.encodeFrame(envelope)))
        .isEqualTo(envelope);
  }

  @Test
  void envelope_inAnyOrderWithUnknownKeysAndAnArrayPayload() {
    byte[] bytes =
        pack(
            map(
                "payload",
                List.of(1, 2, 255),
                "published_at_ns",
                1_700_000_000_000_000_000L,
                "topic",
                "kv_metrics",
                "sequence",
                new U64(Long.MIN_VALUE),
                9,
                "a non-string key",
                "published_at",
                12,
                "publisher_id",
                99));

    assertThat(EventEnvelopeCodec.decodeEnvelope(bytes))
        .isEqualTo(
            new EventEnvelope(99, Long.MIN_VALUE, 12, "kv_metrics", new byte[] {1, 2, (byte) 255}));
  }

  @Test
  void frame_ignoresBytesAfterTheEnvelope() {
    byte[] frame = E3Golden.load("s1_frame.hex");
    byte[] longer = Arrays.copyOf(frame, frame.length + 3);
    longer[frame.length] = (byte) 0xc1;

    assertThat(EventEnvelopeCodec.decodeFrame(longer)).isEqualTo(example(frame, 154));
  }

  // ------------------------------------------------------------------ malformed frames

  static Stream<Arguments> malformedFrames() {
    byte[] frame = E3Golden.load("s1_frame.hex");
    byte[] v2 = frame.clone();
    v2[0] = 2;
    byte[] v0 = frame.clone();
    v0[0] = 0;
    byte[] shortLength = frame.clone();
    shortLength[4] = (byte) 0xe2; // the header says 226: the envelope's last byte is cut off
    byte[] hugeLength = frame.clone();
    hugeLength[1] = (byte) 0xff;
    return Stream.of(
        Arguments.of("empty", new byte[0], "frame: 0 bytes, shorter than the 5-byte header"),
        Arguments.of(
            "header cut",
            Arrays.copyOf(frame, 4),
            "frame: 4 bytes, shorter than the 5-byte header"),
        Arguments.of("version 2", v2, "frame: version 2 is not supported, expected 1"),
        Arguments.of("version 0", v0, "frame: version 0 is not supported, expected 1"),
        Arguments.of(
            "envelope cut",
            Arrays.copyOf(frame, frame.length - 1),
            "frame: the header announces an envelope of 227 bytes, only 226 follow"),
        Arguments.of(
            "length beyond 2^31",
            hugeLength,
            "frame: the header announces an envelope of 4278190307 bytes, only 227 follow"),
        Arguments.of(
            "length one short",
            shortLength,
            "envelope.payload: bin of 154 bytes cannot fit in the 153 bytes left"),
        Arguments.of("not a map", frame(pack(List.of(1))), "envelope: expected a map, got array"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformedFrames")
  void malformedFrame_failsSayingWhere(String what, byte[] frame, String message) {
    assertThatThrownBy(() -> EventEnvelopeCodec.decodeFrame(frame))
        .isInstanceOf(DynamoEventFormatException.class)
        .hasMessageStartingWith(message);
  }

  static Stream<Arguments> malformedEnvelopes() {
    return Stream.of(
        Arguments.of(
            "no topic",
            pack(map("publisher_id", 1, "sequence", 0, "published_at", 1, "payload", new byte[0])),
            "envelope.topic: required field is missing"),
        Arguments.of(
            "payload a string",
            pack(
                map(
                    "publisher_id",
                    1,
                    "sequence",
                    0,
                    "published_at",
                    1,
                    "topic",
                    "t",
                    "payload",
                    "x")),
            "envelope.payload: expected bin, got string"),
        Arguments.of(
            "payload element not a byte",
            pack(
                map(
                    "publisher_id",
                    1,
                    "sequence",
                    0,
                    "published_at",
                    1,
                    "topic",
                    "t",
                    "payload",
                    List.of(256))),
            "envelope.payload[0]: 256 is not a byte"),
        Arguments.of(
            "sequence negative",
            pack(
                map(
                    "publisher_id",
                    1,
                    "sequence",
                    -2,
                    "published_at",
                    1,
                    "topic",
                    "t",
                    "payload",
                    new byte[0])),
            "envelope.sequence: -2 is negative"),
        Arguments.of(
            "topic nil",
            pack(
                map(
                    "publisher_id",
                    1,
                    "sequence",
                    0,
                    "published_at",
                    1,
                    "topic",
                    null,
                    "payload",
                    new byte[0])),
            "envelope.topic: expected a string, got nil"),
        Arguments.of(
            "publisher_id twice",
            concat(
                new byte[] {(byte) 0x86},
                pack("publisher_id"),
                pack(1),
                pack("sequence"),
                pack(0),
                pack("published_at"),
                pack(1),
                pack("topic"),
                pack("t"),
                pack("payload"),
                pack(new byte[0]),
                pack("publisher_id"),
                pack(2)),
            "envelope.publisher_id: duplicate field"),
        Arguments.of(
            "trailing byte",
            concat(
                pack(
                    map(
                        "publisher_id",
                        1,
                        "sequence",
                        0,
                        "published_at",
                        1,
                        "topic",
                        "t",
                        "payload",
                        new byte[0])),
                new byte[] {0}),
            "envelope: 1 trailing bytes after the value"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformedEnvelopes")
  void malformedEnvelope_failsNamingTheField(String what, byte[] envelope, String message) {
    assertThatThrownBy(() -> EventEnvelopeCodec.decodeEnvelope(envelope))
        .isInstanceOf(DynamoEventFormatException.class)
        .hasMessageStartingWith(message);
  }

  // ------------------------------------------------------------------ malformed messages

  static Stream<Arguments> malformedMessages() {
    EventEnvelope envelope = new EventEnvelope(5, 6, 7, "kv-events", new byte[] {1});
    List<byte[]> good = EventEnvelopeCodec.encodeMessage(envelope);
    return Stream.of(
        Arguments.of(
            "three frames",
            good.subList(0, 3),
            "frames: 3 frames, expected 4 (topic, publisher id, sequence, binary frame)"),
        Arguments.of("five frames", with(good, 4, new byte[0]), "frames: 5 frames, expected 4"),
        Arguments.of(
            "publisher id of 7 bytes",
            replace(good, 1, new byte[7]),
            "frames[1] (publisher id): 7 bytes, expected 8 (u64 big-endian)"),
        Arguments.of(
            "sequence of 9 bytes",
            replace(good, 2, new byte[9]),
            "frames[2] (sequence): 9 bytes, expected 8"),
        Arguments.of(
            "another publisher id",
            replace(good, 1, EventEnvelopeCodec.u64(4)),
            "frames[1]: publisher id 4 differs from the envelope's 5"),
        Arguments.of(
            "another sequence",
            replace(good, 2, EventEnvelopeCodec.u64(-1)),
            "frames[2]: sequence 18446744073709551615 differs from the envelope's 6"),
        Arguments.of(
            "another topic",
            replace(good, 0, "kv-events-v2".getBytes(StandardCharsets.UTF_8)),
            "frames[0]: topic \"kv-events-v2\" differs from the envelope's \"kv-events\""),
        Arguments.of(
            "bad binary frame",
            replace(good, 3, new byte[] {9, 0, 0, 0, 0}),
            "frame: version 9 is not supported"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformedMessages")
  void malformedMessage_failsSayingWhichFrame(String what, List<byte[]> frames, String message) {
    assertThatThrownBy(() -> EventEnvelopeCodec.decodeMessage(frames))
        .isInstanceOf(DynamoEventFormatException.class)
        .hasMessageStartingWith(message);
  }

  // ------------------------------------------------------------------ helpers

  private static byte[] frame(byte[] envelope) {
    return concat(new byte[] {1}, EventEnvelopeCodecTest.u32(envelope.length), envelope);
  }

  private static byte[] u32(int value) {
    return new byte[] {
      (byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value
    };
  }

  private static List<byte[]> replace(List<byte[]> frames, int index, byte[] frame) {
    List<byte[]> copy = new ArrayList<>(frames);
    copy.set(index, frame);
    return copy;
  }

  private static List<byte[]> with(List<byte[]> frames, int index, byte[] frame) {
    List<byte[]> copy = new ArrayList<>(frames);
    copy.add(index, frame);
    return copy;
  }
}
