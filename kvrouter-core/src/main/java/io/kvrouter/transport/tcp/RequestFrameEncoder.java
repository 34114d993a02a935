package io.kvrouter.transport.tcp;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;

/** Encodes a {@link RequestFrame} into one buffer, enforcing the limits its decoder enforces. */
final class RequestFrameEncoder {

  private RequestFrameEncoder() {}

  static Buffer encode(RequestFrame frame, int maxMessageSize) {
    byte[] path = frame.path().getBytes(StandardCharsets.UTF_8);
    if (path.length < 1 || path.length > RequestFrame.MAX_PATH_LENGTH) {
      throw new TcpCodecException(
          "endpoint path of " + path.length + " bytes (1.." + RequestFrame.MAX_PATH_LENGTH + ")");
    }
    byte[] headers = WireJson.bytes(frame.headers());
    if (headers.length > 0xFFFF) {
      throw new TcpCodecException("request headers of " + headers.length + " bytes exceed 65535");
    }
    Buffer payload = frame.payload();
    long total = (long) RequestFrame.PREFIX_BYTES + path.length + headers.length + payload.length();
    if (total > maxMessageSize) {
      throw new TcpCodecException(
          "request frame of " + total + " bytes exceeds the limit of " + maxMessageSize + " bytes");
    }
    return Buffer.buffer((int) total)
        .appendUnsignedShort(path.length)
        .appendBytes(path)
        .appendUnsignedShort(headers.length)
        .appendBytes(headers)
        .appendUnsignedInt(payload.length())
        .appendBuffer(payload);
  }
}
