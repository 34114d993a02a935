package io.kvrouter.frontend;

import io.kvrouter.protocol.AllWorkersBusyException;
import io.kvrouter.protocol.InvalidRequestException;
import io.kvrouter.protocol.ModelNotFoundException;
import io.kvrouter.protocol.NoWorkerAvailableException;
import io.kvrouter.protocol.RateLimitedException;
import io.kvrouter.protocol.RequestCancelledException;
import io.kvrouter.protocol.RouterShuttingDownException;
import io.kvrouter.protocol.WorkerStreamException;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place failures become HTTP: an OpenAI error body {@code
 * {"error":{"message","type","param","code"}}} that every OpenAI SDK parses, with the status the
 * failure deserves ({@code --busy-status-code} when every worker is busy). No stack trace, class
 * name, file path or worker address reaches the client: see {@link #of}.
 */
final class ErrorResponses {
  private static final Logger log = LoggerFactory.getLogger(ErrorResponses.class);

  private final int busyStatus;

  ErrorResponses(int busyStatus) {
    this.busyStatus = busyStatus;
  }

  /**
   * An HTTP error: status, OpenAI error type and code, message and offending parameter, and more
   * headers for the response.
   */
  record ApiError(
      int status,
      String type,
      String code,
      String message,
      String param,
      Map<String, String> headers) {
    ApiError {
      headers = Map.copyOf(headers);
    }

    ApiError(int status, String type, String code, String message, String param) {
      this(status, type, code, message, param, Map.of());
    }

    JsonObject body() {
      return new JsonObject()
          .put(
              "error",
              new JsonObject()
                  .put("message", message)
                  .put("type", type)
                  .put("param", param)
                  .put("code", code));
    }
  }

  /**
   * The client's answer to {@code failure} of request {@code id}. What helps the client stays: its
   * own mistakes (validation, an unknown model), a busy fleet, a shutdown, an engine's message that
   * carries no internal detail ({@link EngineMessages}). Everything else, a worker that cannot be
   * reached or refused, a broken or stalled stream, the router's own bugs, is answered with a fixed
   * message naming the request id, and its detail (worker, address, exception) is logged with both
   * of the request's ids, for the operator.
   */
  ApiError of(Throwable failure, RequestIds.RequestId id) {
    if (failure instanceof InvalidRequestException e) {
      return new ApiError(400, "invalid_request_error", null, e.getMessage(), e.param());
    }
    if (failure instanceof ModelNotFoundException e) {
      return new ApiError(404, "invalid_request_error", "model_not_found", e.getMessage(), "model");
    }
    if (failure instanceof AllWorkersBusyException) {
      return new ApiError(
          busyStatus, "service_unavailable", "all_workers_busy", failure.getMessage(), null);
    }
    if (failure instanceof RouterShuttingDownException e) {
      return new ApiError(503, "service_unavailable", "router_shutting_down", e.getMessage(), null);
    }
    if (failure instanceof RateLimitedException e) {
      return rateLimited(e);
    }
    if (failure instanceof RequestCancelledException) {
      return new ApiError(499, "cancelled", null, "The request was cancelled", null);
    }
    if (failure instanceof NoWorkerAvailableException
        || failure instanceof WorkerUnavailableException) {
      log.warn("Request {} found no worker: {}", id, failure.getMessage());
      return new ApiError(
          503,
          "service_unavailable",
          null,
          "No worker can serve this request now; try again later" + seeLog(id),
          null);
    }
    if (failure instanceof WorkerStreamException e) {
      log.warn("Request {} failed at its worker: {}", id, e.getMessage());
      if (e.stalled()) {
        return new ApiError(
            504,
            "server_error",
            "worker_timeout",
            "The worker serving this request stopped sending" + seeLog(id),
            null);
      }
      if (e.disconnected()) {
        return new ApiError(
            502,
            "server_error",
            "worker_error",
            "The worker serving this request failed" + seeLog(id),
            null);
      }
      // The engine reported an error: Dynamo's frontend answers it with 500 and the engine's
      // message, which is kept when it says nothing internal.
      String message =
          EngineMessages.clientSafe(e.engineMessage())
              ? e.engineMessage()
              : "The engine failed to generate a response" + seeLog(id);
      return new ApiError(500, "server_error", "worker_error", message, null);
    }
    log.error("Request {} failed unexpectedly", id, failure);
    return new ApiError(500, "server_error", null, "Internal server error" + seeLog(id), null);
  }

  /** The end of a message whose detail only the log has. */
  private static String seeLog(RequestIds.RequestId id) {
    return " (request id " + id.shown() + ")";
  }

  /**
   * 429 as OpenAI answers it: code {@code rate_limit_exceeded}, type {@code requests} or {@code
   * tokens}, {@code Retry-After} in whole seconds (rounded up, at least 1) and {@code
   * retry-after-ms}, which the OpenAI SDKs read first.
   */
  private static ApiError rateLimited(RateLimitedException e) {
    Map<String, String> headers = new LinkedHashMap<>(e.headers());
    headers.put("retry-after", Long.toString(Math.max(1, (e.retryAfterMillis() + 999) / 1000)));
    headers.put("retry-after-ms", Long.toString(e.retryAfterMillis()));
    return new ApiError(429, e.type(), "rate_limit_exceeded", e.getMessage(), null, headers);
  }

  static void send(HttpServerResponse response, ApiError error) {
    if (response.headWritten() || response.closed()) {
      return;
    }
    error.headers().forEach(response::putHeader);
    response
        .setStatusCode(error.status())
        .putHeader("content-type", "application/json")
        .end(error.body().toBuffer());
  }
}
