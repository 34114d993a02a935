package io.kvrouter.protocol.dynamo;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * One message of Dynamo's event plane: who published it, its number in that publisher's stream,
 * when, on which topic, and the payload (itself msgpack, e.g. {@link DynamoMsgpackCodec}). The wire
 * form is {@link EventEnvelopeCodec}'s.
 *
 * <p>The three numbers are u64 carried in a {@code long} (compare with {@link
 * Long#compareUnsigned}). The payload array is not copied: do not change it once it is in an
 * envelope. {@code equals} compares the payload's contents.
 *
 * @param publisherId the publisher's id: Dynamo's discovery instance id, or a random id
 * @param sequence 0 for the publisher's first message, then +1 per message it publishes
 * @param publishedAtMillis Unix time of publishing, in milliseconds
 * @param topic the bare topic ({@code kv-events}, {@code kv_metrics}) or, behind a broker in the
 *     latest builds, the full subject
 */
public record EventEnvelope(
    long publisherId, long sequence, long publishedAtMillis, String topic, byte[] payload) {
  /**
   * 2^53 − 1: Dynamo masks its random publisher ids to this, so a JSON number in discovery metadata
   * holds them exactly ({@code MAX_JSON_SAFE_PUBLISHER_ID}).
   */
  public static final long MAX_JSON_SAFE_PUBLISHER_ID = (1L << 53) - 1;

  /** A fresh publisher id as Dynamo v1.5 draws one: random, masked to 53 bits. */
  public static long randomPublisherId(java.util.random.RandomGenerator random) {
    return random.nextLong() & MAX_JSON_SAFE_PUBLISHER_ID;
  }

  public EventEnvelope {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(payload, "payload");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EventEnvelope e
        && publisherId == e.publisherId
        && sequence == e.sequence
        && publishedAtMillis == e.publishedAtMillis
        && topic.equals(e.topic)
        && Arrays.equals(payload, e.payload);
  }

  @Override
  public int hashCode() {
    return Objects.hash(publisherId, sequence, publishedAtMillis, topic, Arrays.hashCode(payload));
  }

  @Override
  public String toString() {
    String bytes =
        payload.length <= 32
            ? HexFormat.of().formatHex(payload)
            : HexFormat.of().formatHex(payload, 0, 32) + "...";
    return "EventEnvelope[publisher "
        + Long.toUnsignedString(publisherId)
        + ", seq "
        + Long.toUnsignedString(sequence)
        + ", at "
        + Long.toUnsignedString(publishedAtMillis)
        + ", "
        + topic
        + ", "
        + payload.length
        + " bytes "
        + bytes
        + "]";
  }
}
