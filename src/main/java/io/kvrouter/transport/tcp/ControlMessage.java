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
}
