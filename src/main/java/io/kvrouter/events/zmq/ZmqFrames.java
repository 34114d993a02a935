package io.kvrouter.events.zmq;

import java.nio.ByteBuffer;

/**
 * The frames of vLLM's ZMQ KV event plane (reference {@code vllm-events-and-peers.md} §1.3, §1.4):
 *
 * <pre>
 *   PUB message     [ topic | seq: 8 bytes, big-endian signed | payload: msgpack KVEventBatch ]
 *   replay request  [ "" | start_seq: 8 bytes ]                       (DEALER → ROUTER)
 *   replay reply    [ "" | (topic) | seq: 8 bytes | payload ] per buffered batch with seq ≥ start,
 *                   then [ "" | (topic) | -1: 8 × 0xFF | "" ]           (ROUTER → DEALER)
 * </pre>
 *
 * Sequence numbers count from 0 per publisher process; a restart starts again at 0.
 */
final class ZmqFrames {
  private ZmqFrames() {}

  /** The end-of-replay marker. */
  static final long END_OF_REPLAY = -1L;

  static byte[] seq(long seq) {
    return ByteBuffer.allocate(Long.BYTES).putLong(seq).array();
  }

  /** The sequence number of an 8-byte frame; throws when the frame has another length. */
  static long seq(byte[] frame) {
    if (frame == null || frame.length != Long.BYTES) {
      throw new IllegalArgumentException(
          "a sequence frame has 8 bytes, not " + (frame == null ? 0 : frame.length));
    }
    return ByteBuffer.wrap(frame).getLong();
  }
}
