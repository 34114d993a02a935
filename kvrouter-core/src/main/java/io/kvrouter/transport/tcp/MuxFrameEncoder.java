package io.kvrouter.transport.tcp;

import io.vertx.core.buffer.Buffer;

/** Encodes a {@link MuxFrame} (see its Javadoc for the layout). */
final class MuxFrameEncoder {

  private MuxFrameEncoder() {}

  /** Throws {@link TcpCodecException} when header plus payload exceed {@code maxMessageSize}. */
  static Buffer encode(MuxFrame frame, int maxMessageSize) {
    int total = frame.encodedLength();
    if (total > maxMessageSize || total < MuxFrame.HEADER_BYTES) {
      throw new TcpCodecException(
          "response mux frame size " + total + " exceeds maximum " + maxMessageSize);
    }
    return Buffer.buffer(total)
        .appendInt(frame.payload().length())
        .appendByte((byte) frame.kind().code())
        .appendByte((byte) 0)
        .appendShort((short) 0)
        .appendLong(frame.streamId().getMostSignificantBits())
        .appendLong(frame.streamId().getLeastSignificantBits())
        .appendBuffer(frame.payload());
  }
}
