package io.kvrouter.protocol.dynamo;

import static io.kvrouter.protocol.dynamo.BeforeMsgpackIn.at;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.msgpack.value.ValueType;

/** Temporary, for one benchmark run: the Dynamo decoders of 49a7450, before MsgpackReader. */
public final class BeforeDynamoDecoders {
  private static final List<String> FIELDS =
      List.of("publisher_id", "sequence", "published_at", "topic", "payload");

  private BeforeDynamoDecoders() {}

  public static List<DynamoMsgpackCodec.TieredEvent> payload(byte[] payload) {
    return BeforeRouterEventReader.payload(new BeforeMsgpackIn(payload));
  }

  public static EventEnvelope frame(byte[] frame) {
    long length = Integer.toUnsignedLong(ByteBuffer.wrap(frame, 1, 4).getInt());
    return envelope(new BeforeMsgpackIn(frame, 5, (int) length));
  }

  private static EventEnvelope envelope(BeforeMsgpackIn in) {
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
  private static byte[] payload(BeforeMsgpackIn in, String path) {
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
}
