package io.kvrouter.transport.tcp;

import io.vertx.core.buffer.Buffer;

/**
 * Dynamo's TwoPart envelope: an optional header and an optional body behind a fixed 24-byte prefix
 * of three big-endian u64 values. It wraps the request payload (control header + request body) and
 * every frame of a call-home stream (see the package Javadoc for the pinned version).
 *
 * <pre>
 * +---------------+---------------+---------------+---------------+---------------+
 * | header length | body length   | checksum      | header        | body          |
 * | u64 BE        | u64 BE        | u64 BE        | header length | body length   |
 * +---------------+---------------+---------------+---------------+---------------+
 *
 * header-only frame {"error":null} (14 bytes):
 * 00 00 00 00 00 00 00 0e | 00 00 00 00 00 00 00 00 | 00 00 00 00 00 00 00 00 | 7b 22 .. 7d
 * </pre>
 *
 * <p>The checksum: Dynamo's release builds write 0; its debug builds write the xxh3-64 of header
 * plus body and verify it only when it is non-zero, and only in debug builds. This package writes 0
 * and ignores whatever arrives, as a release build does. The whole frame, prefix included, must fit
 * in {@code DYN_TCP_MAX_MESSAGE_SIZE}.
 */
record TwoPartMessage(Buffer header, Buffer body) {

  static final int PREFIX_BYTES = 24;

  private static final Buffer EMPTY = Buffer.buffer(new byte[0]);

  static TwoPartMessage headerOnly(Buffer header) {
    return new TwoPartMessage(header, EMPTY);
  }

  static TwoPartMessage bodyOnly(Buffer body) {
    return new TwoPartMessage(EMPTY, body);
  }

  boolean hasHeader() {
    return header.length() > 0;
  }

  boolean hasBody() {
    return body.length() > 0;
  }
}
