package io.kvrouter.transport.tcp;

import io.vertx.core.buffer.Buffer;

/**
 * Bytes received on a connection and not yet decoded: the input side shared by the frame decoders.
 * Reads advance a cursor; {@link #discardReadBytes()} drops what has been consumed so a long-lived
 * connection does not accumulate its history.
 */
final class InboundBytes {
  private Buffer buffer = Buffer.buffer();
  private int readIndex;

  void append(Buffer chunk) {
    buffer.appendBuffer(chunk);
  }

  int readable() {
    return buffer.length() - readIndex;
  }

  int readUnsignedShort() {
    int value = buffer.getUnsignedShort(readIndex);
    readIndex += 2;
    return value;
  }

  long readUnsignedInt() {
    long value = buffer.getUnsignedInt(readIndex);
    readIndex += 4;
    return value;
  }

  long readLong() {
    long value = buffer.getLong(readIndex);
    readIndex += 8;
    return value;
  }

  byte[] readBytes(int length) {
    byte[] bytes = buffer.getBytes(readIndex, readIndex + length);
    readIndex += length;
    return bytes;
  }

  Buffer readBuffer(int length) {
    Buffer slice = buffer.getBuffer(readIndex, readIndex + length);
    readIndex += length;
    return slice;
  }

  void discardReadBytes() {
    if (readIndex == 0) {
      return;
    }
    buffer =
        readIndex == buffer.length()
            ? Buffer.buffer()
            : buffer.getBuffer(readIndex, buffer.length());
    readIndex = 0;
  }
}
