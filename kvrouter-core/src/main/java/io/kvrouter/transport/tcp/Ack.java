package io.kvrouter.transport.tcp;

/**
 * The worker's one reply to each request frame. Acks carry no id: they answer the requests of a
 * connection in the order the requests arrived. All integers big-endian; see the package Javadoc
 * for the pinned version.
 *
 * <pre>
 * +--------+-----------------------------------------------+
 * | u32    | text, UTF-8                                   |
 * | length | empty: accepted (the worker will call home)   |
 * |        | otherwise the reason it will not              |
 * +--------+-----------------------------------------------+
 *
 * accepted: 00 00 00 00
 * rejected: 00 00 00 25 | "Server overloaded: worker at capacity"
 * </pre>
 *
 * <p>Rejections Dynamo's workers send: {@code Server overloaded: ...} (pool and queue full), {@code
 * Server unavailable: ...} (unknown endpoint, pool closed), {@code Read error: ...} (followed by
 * closing the connection) and {@code Invalid endpoint path}; v0.x workers sent {@code Unknown
 * endpoint: ...}. Dynamo's v1 frontend treats only the two {@code Server} prefixes as rejections
 * and anything else as an acceptance; this package treats every non-empty reply as a rejection,
 * since no worker calls home after one.
 *
 * @param rejection empty when accepted
 */
record Ack(String rejection) {

  static final Ack ACCEPTED = new Ack("");

  /** Prefix Dynamo's frontend recognises as a worker that cannot serve this request. */
  static final String UNAVAILABLE_PREFIX = "Server unavailable: ";

  static Ack rejected(String reason) {
    return new Ack(reason);
  }

  static Ack unavailable(String detail) {
    return new Ack(UNAVAILABLE_PREFIX + detail);
  }

  boolean accepted() {
    return rejection.isEmpty();
  }
}
