package io.kvrouter.transport.tcp;

import io.vertx.core.buffer.Buffer;
import java.util.function.Consumer;

/**
 * The driver shared by the request-plane decoders: bytes arrive in fragments of any size, and a
 * subclass's state machine consumes them one field at a time. {@link #decodeStep} reads one state
 * and returns {@code false} while that state's bytes have not all arrived. A {@link
 * TcpCodecException} leaves the decoder failed: the connection it reads is no longer in sync.
 *
 * @param <T> the messages decoded
 */
abstract class FrameDecoder<T> {
  /** Bytes received and not yet consumed by a state. */
  final InboundBytes in = new InboundBytes();

  final int maxMessageSize;
  private boolean failed;

  FrameDecoder(int maxMessageSize) {
    this.maxMessageSize = maxMessageSize;
  }

  /** Appends {@code chunk} and hands every message it completes to {@code out}, in order. */
  final void decode(Buffer chunk, Consumer<T> out) {
    if (failed) {
      throw new TcpCodecException(getClass().getSimpleName() + " failed earlier");
    }
    in.append(chunk);
    try {
      while (decodeStep(out)) {
        // each step consumed a whole state; loop until one is incomplete
      }
    } catch (TcpCodecException e) {
      failed = true;
      throw e;
    }
    in.discardReadBytes();
  }

  /** Decodes the current state; {@code false} when more bytes are needed. */
  abstract boolean decodeStep(Consumer<T> out);
}
