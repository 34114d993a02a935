package io.kvrouter.events.zmq;

import java.nio.ByteBuffer;
import java.util.Optional;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * The frames of vLLM's ZMQ KV event plane ({@code docs/interop.md} §5.3):
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

  /** A batch as it travels: its sequence number and its msgpack payload. */
  record Numbered(long seq, byte[] payload) {}

  /**
   * The batch in the last two frames of {@code message}, {@code [seq | payload]}, when the message
   * has from {@code minFrames} to {@code maxFrames} frames (the ones before are skipped) and an
   * 8-byte seq frame; otherwise empty (malformed). The message is consumed.
   */
  static Optional<Numbered> numbered(ZMsg message, int minFrames, int maxFrames) {
    try {
      if (message.size() < minFrames || message.size() > maxFrames) {
        return Optional.empty();
      }
      while (message.size() > 2) {
        message.pop();
      }
      byte[] seq = message.pop().getData();
      if (seq == null || seq.length != Long.BYTES) {
        return Optional.empty();
      }
      return Optional.of(new Numbered(seq(seq), message.pop().getData()));
    } finally {
      message.destroy();
    }
  }

  /** Sends one replay reply, {@code [identity | "" | seq | payload]}, on a ROUTER socket. */
  static void sendReply(ZMQ.Socket router, byte[] identity, long seq, byte[] payload) {
    router.sendMore(identity);
    router.sendMore(new byte[0]);
    router.sendMore(seq(seq));
    router.send(payload);
  }

  /** Sends the end of a replay, {@code [identity | "" | -1 | ""]}, on a ROUTER socket. */
  static void sendEndOfReplay(ZMQ.Socket router, byte[] identity) {
    sendReply(router, identity, END_OF_REPLAY, new byte[0]);
  }
}
