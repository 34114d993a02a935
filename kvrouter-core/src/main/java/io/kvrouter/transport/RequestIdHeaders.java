package io.kvrouter.transport;

import io.kvrouter.protocol.PreprocessedRequest;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The request-id headers every request plane sends a worker. Dynamo's planes carry two: {@code
 * request-id}, the frontend's own id of the request (a UUID, unique while it runs), and {@code
 * x-request-id}, the id the HTTP client chose, which Dynamo's runtime reads into its trace context
 * and logs beside the request ({@code TraceParent} in lib/runtime/src/logging.rs). A request whose
 * client sent no id carries the router's in both.
 *
 * <p>A plain engine's HTTP server has one: vLLM takes {@code X-Request-Id} as the request's own id,
 * and before its input processor made request ids unique (vllm/v1/engine) refused a second request
 * with an id already running. So that header carries the client's id followed by the router's
 * ({@link #forEngine}), unique and still found by the client's id.
 */
public final class RequestIdHeaders {
  /** The frontend's id of the request, on Dynamo's planes. */
  public static final String REQUEST_ID = "request-id";

  /** The client's id of the request, on Dynamo's planes. */
  public static final String X_REQUEST_ID = "x-request-id";

  private RequestIdHeaders() {}

  /** The headers of request {@code requestId} on a Dynamo plane. */
  public static Map<String, String> forDynamo(String requestId, PreprocessedRequest request) {
    Map<String, String> headers = new LinkedHashMap<>(4);
    headers.put(REQUEST_ID, requestId);
    headers.put(X_REQUEST_ID, clientOr(requestId, request));
    return headers;
  }

  /**
   * The {@code X-Request-Id} of request {@code requestId} to a plain engine: unique per request.
   */
  public static String forEngine(String requestId, PreprocessedRequest request) {
    String client = request == null ? null : request.clientRequestId();
    return client == null ? requestId : client + "-" + requestId;
  }

  private static String clientOr(String requestId, PreprocessedRequest request) {
    String client = request == null ? null : request.clientRequestId();
    return client == null ? requestId : client;
  }
}
