package io.kvrouter.transport.tcp;

import io.vertx.core.buffer.Buffer;
import java.util.Map;

/**
 * One request on a request-plane connection, frontend to worker (Dynamo's {@code
 * TcpRequestMessage}, see the package Javadoc for the pinned version). All integers big-endian.
 *
 * <pre>
 * +--------+----------------+--------+--------------------+--------+------------------+
 * | u16    | path           | u16    | headers            | u32    | payload          |
 * | path   | UTF-8,         | header | JSON object,       | payload| TwoPart envelope |
 * | length | 1..1024 bytes  | length | string values      | length | (control + body) |
 * +--------+----------------+--------+--------------------+--------+------------------+
 *
 * e.g. path "generate", headers {"request-id":"r1"}, 60-byte payload:
 * 00 08 | 67 65 6e 65 72 61 74 65 | 00 13 | 7b 22 .. 7d | 00 00 00 3c | ..60 bytes..
 * </pre>
 *
 * <p>The whole frame, prefixes included, must fit in {@code DYN_TCP_MAX_MESSAGE_SIZE}. A headers
 * length of 0 means no headers; Dynamo's own encoder writes {@code {}}.
 *
 * @param path the routing path the worker registered, or {@code null} when the bytes on the wire
 *     were not valid UTF-8 (the worker answers {@code Invalid endpoint path})
 * @param headers tracing and request-id headers ({@code request-id}, {@code x-request-id}: {@link
 *     io.kvrouter.transport.RequestIdHeaders}); never {@code null}
 * @param payload the TwoPart envelope, opaque at this layer
 */
record RequestFrame(String path, Map<String, String> headers, Buffer payload) {

  /** Longest path Dynamo's worker accepts, in bytes. */
  static final int MAX_PATH_LENGTH = 1024;

  /** Bytes of the three length prefixes. */
  static final int PREFIX_BYTES = 2 + 2 + 4;
}
