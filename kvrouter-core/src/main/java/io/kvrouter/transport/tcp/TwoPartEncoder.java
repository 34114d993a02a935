package io.kvrouter.transport.tcp;

import io.vertx.core.buffer.Buffer;

/** Encodes a {@link TwoPartMessage} into one buffer with a zero checksum. */
final class TwoPartEncoder {

  private TwoPartEncoder() {}

  static Buffer encode(TwoPartMessage message, int maxMessageSize) {
    int header = message.header().length();
    int body = message.body().length();
    long total = checkSize(header, body, maxMessageSize);
    return Buffer.buffer((int) total)
        .appendLong(header)
        .appendLong(body)
        .appendLong(0L)
        .appendBuffer(message.header())
        .appendBuffer(message.body());
  }

  /**
   * The size of a message of {@code header} and {@code body} bytes.
   *
   * @throws TcpCodecException when it exceeds {@code maxMessageSize}
   */
  static long checkSize(int header, int body, int maxMessageSize) {
    long total = (long) TwoPartMessage.PREFIX_BYTES + header + body;
    if (total > maxMessageSize) {
      throw new TcpCodecException(
          "TwoPart frame of " + total + " bytes exceeds the limit of " + maxMessageSize + " bytes");
    }
    return total;
  }
}
