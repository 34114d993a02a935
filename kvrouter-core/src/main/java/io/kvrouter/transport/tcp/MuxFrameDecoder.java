package io.kvrouter.transport.tcp;

import java.util.UUID;
import java.util.function.Consumer;

/**
 * Decodes {@link MuxFrame}s from fragments of a byte stream, as Dynamo's {@code MuxCodec} does: a
 * length that would make the frame (header included) larger than {@code DYN_TCP_MAX_MESSAGE_SIZE}
 * is rejected as soon as the header has arrived, before the payload is buffered; then non-zero
 * flags or reserved bits, an unknown kind and the rules of {@link MuxFrame#validate()}.
 */
final class MuxFrameDecoder extends FrameDecoder<MuxFrame> {
  private boolean header = true;
  private long payloadLength;
  private MuxFrameKind kind;
  private UUID streamId;

  MuxFrameDecoder(int maxMessageSize) {
    super(maxMessageSize);
  }

  @Override
  boolean decodeStep(Consumer<MuxFrame> out) {
    return header ? decodeHeader() : decodePayload(out);
  }

  private boolean decodeHeader() {
    if (in.readable() < MuxFrame.HEADER_BYTES) {
      return false;
    }
    payloadLength = in.readUnsignedInt();
    if (MuxFrame.HEADER_BYTES + payloadLength > maxMessageSize) {
      throw new TcpCodecException(
          "response mux frame size "
              + (MuxFrame.HEADER_BYTES + payloadLength)
              + " exceeds maximum "
              + maxMessageSize);
    }
    byte[] fixed = in.readBytes(4);
    if (fixed[1] != 0 || fixed[2] != 0 || fixed[3] != 0) {
      throw new TcpCodecException("response mux frame has unsupported flags or reserved bits");
    }
    kind = MuxFrameKind.of(fixed[0] & 0xff);
    streamId = new UUID(in.readLong(), in.readLong());
    header = false;
    return true;
  }

  private boolean decodePayload(Consumer<MuxFrame> out) {
    if (in.readable() < payloadLength) {
      return false;
    }
    MuxFrame frame = new MuxFrame(kind, streamId, in.readBuffer((int) payloadLength)).validate();
    header = true;
    out.accept(frame);
    return true;
  }
}
