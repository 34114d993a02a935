package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * The header-only control frames of a call-home connection, each a JSON string: Dynamo's {@code
 * ControlMessage}. The worker ends a finished stream with {@code "sentinel"}; the frontend cancels
 * with {@code "stop"} (graceful) or {@code "kill"} (hard), after which the worker sends nothing
 * more, not even the sentinel.
 *
 * <pre>
 * "stop" | "kill" | "sentinel"    (quotes included: the header is a JSON document)
 * </pre>
 */
enum ControlMessage {
  STOP("stop"),
  KILL("kill"),
  SENTINEL("sentinel");

  private final String wireName;

  ControlMessage(String wireName) {
    this.wireName = wireName;
  }

  @JsonValue
  String wireName() {
    return wireName;
  }

  /**
   * Checks that a header frame from a worker, after the prologue, is the sentinel: the only control
   * message a worker sends. Throws {@link TcpCodecException} otherwise.
   */
  static void requireSentinel(TwoPartMessage frame) {
    ControlMessage control = WireJson.read(frame.header(), ControlMessage.class, "control message");
    if (control != SENTINEL || frame.hasBody()) {
      throw new TcpCodecException("unexpected control message " + control + " from the worker");
    }
  }
}
