package io.kvrouter.transport.tcp;

import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Decodes {@link TwoPartMessage}s from fragments of a byte stream. Two states: the 24-byte prefix,
 * then header and body together. Lengths that add up to more than the configured maximum throw
 * {@link TcpCodecException} as soon as the prefix is read, before any of the announced bytes are
 * buffered. The checksum is read and ignored (see {@link TwoPartMessage}).
 */
final class TwoPartDecoder extends FrameDecoder<TwoPartMessage> {

  private enum State {
    PREFIX,
    PARTS
  }

  private State state = State.PREFIX;
  private int headerLength;
  private int bodyLength;

  TwoPartDecoder(int maxMessageSize) {
    super(maxMessageSize);
  }

  /** Decodes a buffer that must hold exactly one complete frame, such as a request payload. */
  static TwoPartMessage decodeWhole(Buffer frame, int maxMessageSize) {
    TwoPartDecoder decoder = new TwoPartDecoder(maxMessageSize);
    List<TwoPartMessage> messages = new ArrayList<>(1);
    decoder.decode(frame, messages::add);
    if (messages.size() != 1 || decoder.state != State.PREFIX || decoder.in.readable() != 0) {
      throw new TcpCodecException(
          "expected exactly one TwoPart frame in " + frame.length() + " bytes");
    }
    return messages.get(0);
  }

  @Override
  boolean decodeStep(Consumer<TwoPartMessage> out) {
    return switch (state) {
      case PREFIX -> decodePrefix();
      case PARTS -> decodeParts(out);
    };
  }

  private boolean decodePrefix() {
    if (in.readable() < TwoPartMessage.PREFIX_BYTES) {
      return false;
    }
    long header = in.readLong();
    long body = in.readLong();
    in.readLong(); // checksum, ignored as Dynamo's release builds do
    // u64 lengths at or above 2^63 read as negative longs: too large either way
    if (header < 0
        || body < 0
        || header > maxMessageSize
        || body > maxMessageSize
        || TwoPartMessage.PREFIX_BYTES + header + body > maxMessageSize) {
      throw new TcpCodecException(
          "TwoPart frame with header "
              + Long.toUnsignedString(header)
              + " and body "
              + Long.toUnsignedString(body)
              + " bytes exceeds the limit of "
              + maxMessageSize
              + " bytes");
    }
    headerLength = (int) header;
    bodyLength = (int) body;
    state = State.PARTS;
    return true;
  }

  private boolean decodeParts(Consumer<TwoPartMessage> out) {
    if (in.readable() < headerLength + bodyLength) {
      return false;
    }
    Buffer header = in.readBuffer(headerLength);
    Buffer body = in.readBuffer(bodyLength);
    state = State.PREFIX;
    out.accept(new TwoPartMessage(header, body));
    return true;
  }
}
