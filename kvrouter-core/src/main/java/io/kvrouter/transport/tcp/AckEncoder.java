package io.kvrouter.transport.tcp;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;

/** Encodes an {@link Ack} into one buffer. */
final class AckEncoder {

  private AckEncoder() {}

  static Buffer encode(Ack ack) {
    byte[] text = ack.rejection().getBytes(StandardCharsets.UTF_8);
    return Buffer.buffer(4 + text.length).appendUnsignedInt(text.length).appendBytes(text);
  }
}
