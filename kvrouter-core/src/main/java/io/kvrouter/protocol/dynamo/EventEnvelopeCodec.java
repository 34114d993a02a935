package io.kvrouter.protocol.dynamo;

import static io.kvrouter.protocol.dynamo.MsgpackIn.at;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.msgpack.value.ValueType;

/**
 * The wire form of an {@link EventEnvelope} on Dynamo's ZMQ event plane ("E3", {@code
 * docs/notes/dynamo-e3-event-plane.md} §1 and §2), in three layers.
 *
 * <h2>The ZMQ message: four frames</h2>
 *
 * <pre>
 *  frame 0  +---------------------------+  the topic, UTF-8, no terminator: what a SUB socket
 *           | k v - e v e n t s         |  filters on (ZeroMQ matches a prefix; a reader wants
 *           +---------------------------+  it equal to its topic)
 *  frame 1  +---------------------------+
 *           | publisher_id  u64 BE (8)  |  copies of the envelope's two numbers, so a reader
 *  frame 2  +---------------------------+  can check them without decoding (they must agree
 *           | sequence      u64 BE (8)  |  with the envelope, or the message is dropped)
 *  frame 3  +---------------------------+
 *           | the binary frame (below)  |
 *           +---------------------------+
 * </pre>
 *
 * <h2>The binary frame: a 5-byte header and the envelope</h2>
 *
 * <pre>
 *   byte  0        1  2  3  4          5 ...            5 + length ...
 *        +--------+------------------+----------------+-----------------+
 *        | 0x01   | length u32 BE    | envelope       | (ignored)       |
 *        +--------+------------------+----------------+-----------------+
 *         version   bytes of envelope  msgpack map      trailing bytes
 * </pre>
 *
 * Version 1 is the only one; no checksum, no flags. Exactly {@code length} bytes are the envelope;
 * more bytes after them are ignored, fewer are an error.
 *
 * <h2>The envelope: an rmp_serde named map</h2>
 *
 * <pre>
 *   map(5) {
 *     "publisher_id": u64,
 *     "sequence":     u64,
 *     "published_at": u64,        Unix milliseconds
 *     "topic":        str,
 *     "payload":      bin         the event's own msgpack, nested as bytes (not inlined)
 *   }
 * </pre>
 *
 * Written in that key order with the smallest integer, string and bin forms (as {@code
 * rmp_serde::to_vec_named} does). Read in any order; unknown keys (some builds add {@code
 * published_at_ns}) are skipped; all five are required, a known key twice is an error; the payload
 * may also come as an array of byte values, which serde accepts for bytes too.
 *
 * <p>Every failure is a {@link DynamoEventFormatException} whose message starts with where: {@code
 * frames}, {@code frames[1]}, {@code frame}, or {@code envelope.<field>}.
 *
 * <p>Thread-safe and stateless.
 */
public final class EventEnvelopeCodec {
  /** The only binary frame version. */
  public static final int FRAME_VERSION = 1;

  /** Version byte and u32 length. */
  public static final int FRAME_HEADER_BYTES = 5;

  /** Frames of one ZMQ message. */
  public static final int MESSAGE_FRAMES = 4;

  private static final List<String> FIELDS =
      List.of("publisher_id", "sequence", "published_at", "topic", "payload");

  private EventEnvelopeCodec() {}

  // ------------------------------------------------------------------ envelope

  /** The envelope as a msgpack map. */
  public static byte[] encodeEnvelope(EventEnvelope envelope) {
    Objects.requireNonNull(envelope, "envelope");
    return MsgpackOut.write(
        out -> {
          out.packMapHeader(5);
          MsgpackOut.string(out, "publisher_id");
          MsgpackOut.u64(out, envelope.publisherId());
          MsgpackOut.string(out, "sequence");
          MsgpackOut.u64(out, envelope.sequence());
          MsgpackOut.string(out, "published_at");
          MsgpackOut.u64(out, envelope.publishedAtMillis());
          MsgpackOut.string(out, "topic");
          MsgpackOut.string(out, envelope.topic());
          MsgpackOut.string(out, "payload");
          MsgpackOut.bin(out, envelope.payload());
        });
  }

  /**
   * The envelope in {@code bytes}, which must hold exactly one msgpack map.
   *
   * @throws DynamoEventFormatException if it is not one
   */
  public static EventEnvelope decodeEnvelope(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    return MsgpackIn.decode(bytes, EventEnvelopeCodec::envelope);
  }

  private static EventEnvelope envelope(MsgpackIn in) {
    String path = "envelope";
    int n = in.mapHeader(path);
    Set<String> seen = new HashSet<>();
    Long publisherId = null;
    Long sequence = null;
    Long publishedAt = null;
    String topic = null;
    byte[] payload = null;
    for (int i = 0; i < n; i++) {
      String key = in.key(path);
      if (key == null || !FIELDS.contains(key)) {
        in.skip(path);
        continue;
      }
      String where = at(path, key);
      if (!seen.add(key)) {
        throw in.fail(where, "duplicate field");
      }
      switch (key) {
        case "publisher_id" -> publisherId = in.u64(where);
        case "sequence" -> sequence = in.u64(where);
        case "published_at" -> publishedAt = in.u64(where);
        case "topic" -> topic = in.string(where);
        default -> payload = payload(in, where);
      }
    }
    for (String field : FIELDS) {
      if (!seen.contains(field)) {
        throw in.fail(at(path, field), "required field is missing");
      }
    }
    in.end(path);
    return new EventEnvelope(publisherId, sequence, publishedAt, topic, payload);
  }

  /** bin, or an array of integers 0..255. */
  private static byte[] payload(MsgpackIn in, String path) {
    if (in.peek(path) != ValueType.ARRAY) {
      return in.bin(path);
    }
    int n = in.arrayHeader(path);
    byte[] bytes = new byte[n];
    for (int i = 0; i < n; i++) {
      long b = in.u64(path + "[" + i + "]");
      if (b < 0 || b > 255) {
        throw in.fail(path + "[" + i + "]", Long.toUnsignedString(b) + " is not a byte");
      }
      bytes[i] = (byte) b;
    }
    return bytes;
  }

  // ------------------------------------------------------------------ binary frame

  /** The binary frame: version 1, the envelope's length (u32 big-endian), the envelope. */
  public static byte[] encodeFrame(EventEnvelope envelope) {
    byte[] body = encodeEnvelope(envelope);
    return ByteBuffer.allocate(FRAME_HEADER_BYTES + body.length)
        .put((byte) FRAME_VERSION)
        .putInt(body.length)
        .put(body)
        .array();
  }

  /**
   * The envelope in a binary frame; bytes after the envelope's length are ignored.
   *
   * @throws DynamoEventFormatException if the frame is shorter than its header or than the length
   *     it announces, has another version, or does not hold an envelope
   */
  public static EventEnvelope decodeFrame(byte[] frame) {
    Objects.requireNonNull(frame, "frame");
    if (frame.length < FRAME_HEADER_BYTES) {
      throw new DynamoEventFormatException(
          "frame: "
              + frame.length
              + " bytes, shorter than the "
              + FRAME_HEADER_BYTES
              + "-byte header");
    }
    int version = frame[0] & 0xFF;
    if (version != FRAME_VERSION) {
      throw new DynamoEventFormatException(
          "frame: version " + version + " is not supported, expected " + FRAME_VERSION);
    }
    long length = Integer.toUnsignedLong(ByteBuffer.wrap(frame, 1, 4).getInt());
    int available = frame.length - FRAME_HEADER_BYTES;
    if (length > available) {
      throw new DynamoEventFormatException(
          "frame: the header announces an envelope of "
              + length
              + " bytes, only "
              + available
              + " follow");
    }
    return MsgpackIn.decode(frame, FRAME_HEADER_BYTES, (int) length, EventEnvelopeCodec::envelope);
  }

  // ------------------------------------------------------------------ ZMQ message

  /** The four frames of the ZMQ message that carries {@code envelope}. */
  public static List<byte[]> encodeMessage(EventEnvelope envelope) {
    Objects.requireNonNull(envelope, "envelope");
    return List.of(
        envelope.topic().getBytes(StandardCharsets.UTF_8),
        u64(envelope.publisherId()),
        u64(envelope.sequence()),
        encodeFrame(envelope));
  }

  /**
   * The envelope a ZMQ message carries, checked against the message's other frames.
   *
   * @throws DynamoEventFormatException if there are not four frames, frame 1 or 2 is not 8 bytes,
   *     frame 3 is not a valid binary frame, or frames 0, 1, 2 disagree with the envelope's topic,
   *     publisher id or sequence
   */
  public static EventEnvelope decodeMessage(List<byte[]> frames) {
    Objects.requireNonNull(frames, "frames");
    if (frames.size() != MESSAGE_FRAMES) {
      throw new DynamoEventFormatException(
          "frames: "
              + frames.size()
              + " frames, expected "
              + MESSAGE_FRAMES
              + " (topic, publisher id, sequence, binary frame)");
    }
    long publisherId = u64(frames.get(1), "frames[1] (publisher id)");
    long sequence = u64(frames.get(2), "frames[2] (sequence)");
    EventEnvelope envelope = decodeFrame(frames.get(3));
    if (publisherId != envelope.publisherId()) {
      throw mismatch("frames[1]", "publisher id", publisherId, envelope.publisherId());
    }
    if (sequence != envelope.sequence()) {
      throw mismatch("frames[2]", "sequence", sequence, envelope.sequence());
    }
    if (!Arrays.equals(frames.get(0), envelope.topic().getBytes(StandardCharsets.UTF_8))) {
      throw new DynamoEventFormatException(
          "frames[0]: topic \""
              + new String(frames.get(0), StandardCharsets.UTF_8)
              + "\" differs from the envelope's \""
              + envelope.topic()
              + "\"");
    }
    return envelope;
  }

  private static DynamoEventFormatException mismatch(
      String where, String what, long frame, long envelope) {
    return new DynamoEventFormatException(
        where
            + ": "
            + what
            + " "
            + Long.toUnsignedString(frame)
            + " differs from the envelope's "
            + Long.toUnsignedString(envelope));
  }

  static byte[] u64(long value) {
    return ByteBuffer.allocate(Long.BYTES).putLong(value).array();
  }

  private static long u64(byte[] frame, String where) {
    if (frame == null || frame.length != Long.BYTES) {
      throw new DynamoEventFormatException(
          where
              + ": "
              + (frame == null ? 0 : frame.length)
              + " bytes, expected 8 (u64"
              + " big-endian)");
    }
    return ByteBuffer.wrap(frame).getLong();
  }
}
