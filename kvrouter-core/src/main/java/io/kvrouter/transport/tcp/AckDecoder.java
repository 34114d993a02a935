package io.kvrouter.transport.tcp;

import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Decodes {@link Ack}s from fragments of a request-plane connection: a length state, then a text
 * state. A length over the configured maximum throws {@link TcpCodecException} before its bytes are
 * buffered.
 */
final class AckDecoder extends FrameDecoder<Ack> {

  private enum State {
    LENGTH,
    TEXT
  }

  private State state = State.LENGTH;
  private int textLength;

  AckDecoder(int maxMessageSize) {
    super(maxMessageSize);
  }

  @Override
  boolean decodeStep(Consumer<Ack> out) {
    return switch (state) {
      case LENGTH -> decodeLength();
      case TEXT -> decodeText(out);
    };
  }

  private boolean decodeLength() {
    if (in.readable() < 4) {
      return false;
    }
    long length = in.readUnsignedInt();
    if (4 + length > maxMessageSize) {
      throw new TcpCodecException(
          "ack of " + length + " bytes exceeds the limit of " + maxMessageSize + " bytes");
    }
    textLength = (int) length;
    state = State.TEXT;
    return true;
  }

  private boolean decodeText(Consumer<Ack> out) {
    if (in.readable() < textLength) {
      return false;
    }
    String text = new String(in.readBytes(textLength), StandardCharsets.UTF_8);
    state = State.LENGTH;
    out.accept(text.isEmpty() ? Ack.ACCEPTED : Ack.rejected(text));
    return true;
  }
}
