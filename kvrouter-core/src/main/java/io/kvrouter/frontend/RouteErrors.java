package io.kvrouter.frontend;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns every failure vertx-web reports by status into an OpenAI error: no route (404), wrong
 * method (405), a body over the limit (413), a request vertx-web cannot route (400: a bad path
 * escape, a bad {@code Host}), and the rest of what its handlers report. Without a handler for a
 * status, vertx-web answers a plain-text reason and logs the client's mistake as an ERROR; here the
 * client's mistakes are counted and logged through {@link ClientFaults} instead, and only a 500
 * (the router's own fault) is logged as an error.
 */
final class RouteErrors {
  private static final Logger log = LoggerFactory.getLogger(RouteErrors.class);

  /**
   * The status {@code BodyHandler} fails a request with when its body stream broke (the client
   * closed the connection, or the body could not be decoded): it keeps the response's 200.
   */
  private static final int BODY_STREAM_FAILED = 200;

  private final ErrorResponses errors;
  private final ClientFaults faults;
  private final long bodyLimitBytes;

  private RouteErrors(ErrorResponses errors, ClientFaults faults, long bodyLimitBytes) {
    this.errors = errors;
    this.faults = faults;
    this.bodyLimitBytes = bodyLimitBytes;
  }

  static void install(
      Router router, ErrorResponses errors, ClientFaults faults, long bodyLimitBytes) {
    RouteErrors handlers = new RouteErrors(errors, faults, bodyLimitBytes);
    for (int status : new int[] {BODY_STREAM_FAILED, 400, 404, 405, 413, 415, 417}) {
      router.errorHandler(status, ctx -> handlers.clientFault(ctx, status));
    }
    router.errorHandler(
        500,
        ctx ->
            ErrorResponses.send(
                ctx.response(),
                errors.of(
                    ctx.failure() == null
                        ? new IllegalStateException("failed without a cause")
                        : ctx.failure(),
                    RequestIds.of(ctx))));
  }

  private void clientFault(RoutingContext ctx, int status) {
    if (ctx.response().closed()) {
      log.debug("client gone before its request was read: {}", String.valueOf(ctx.failure()));
      return;
    }
    ErrorResponses.ApiError error = error(ctx, status);
    faults.rejected(
        error, ctx.request().method() + " request from " + ctx.request().remoteAddress());
    ErrorResponses.send(ctx.response(), error);
  }

  private ErrorResponses.ApiError error(RoutingContext ctx, int status) {
    String method = String.valueOf(ctx.request().method());
    return switch (status) {
      case 404 -> invalid(404, "not_found", "No route for " + method + " " + ctx.request().path());
      case 405 ->
          invalid(405, "method_not_allowed", method + " is not allowed on " + ctx.request().path());
      case 413 ->
          invalid(
              413,
              "request_too_large",
              "The request body is larger than " + bodyLimitBytes + " bytes");
      case 415 ->
          invalid(
              415,
              "unsupported_media_type",
              "Content-Type " + ctx.request().getHeader("content-type") + " is not supported");
      case 417 ->
          invalid(417, "expectation_failed", "Only the expectation 100-continue is supported");
      case BODY_STREAM_FAILED ->
          invalid(400, "malformed_body", "The request body could not be read: " + reason(ctx));
      default -> invalid(400, "bad_request", "Bad request: " + reason(ctx));
    };
  }

  /** What was wrong with the client's input, when the failure says it ({@link ProtocolErrors}). */
  private static String reason(RoutingContext ctx) {
    String fault = ProtocolErrors.inputFault(ctx.failure());
    return fault.isEmpty() ? "malformed request" : fault.substring(2);
  }

  private static ErrorResponses.ApiError invalid(int status, String code, String message) {
    return new ErrorResponses.ApiError(status, "invalid_request_error", code, message, null);
  }
}
