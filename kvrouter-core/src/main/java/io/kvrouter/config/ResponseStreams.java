package io.kvrouter.config;

import java.util.Map;
import java.util.Objects;

/**
 * Which response transport the router asks of each worker: the router-wide default ({@code
 * --tcp-response-mux}, {@code DYN_TCP_RESPONSE_MUX}) unless the worker's {@code --worker} entry
 * says {@code response-stream=call-home|mux}. Dynamo's frontend decides per request too: the worker
 * learns it from the request's {@code connection_info}, and nothing in discovery advertises it.
 *
 * @param byWorker overrides by worker id
 */
public record ResponseStreams(
    ResponseStreamKind fallback, Map<String, ResponseStreamKind> byWorker) {

  public static final ResponseStreams CALL_HOME =
      new ResponseStreams(ResponseStreamKind.CALL_HOME, Map.of());

  public ResponseStreams {
    Objects.requireNonNull(fallback, "fallback");
    byWorker = Map.copyOf(byWorker);
  }

  /** Every worker answers on {@code kind}. */
  public static ResponseStreams all(ResponseStreamKind kind) {
    return new ResponseStreams(kind, Map.of());
  }

  public ResponseStreamKind forWorker(String workerId) {
    return byWorker.getOrDefault(workerId, fallback);
  }
}
