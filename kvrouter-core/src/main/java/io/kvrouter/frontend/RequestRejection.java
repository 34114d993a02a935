package io.kvrouter.frontend;

/**
 * A request the HTTP layer refuses before any route sees it, with the answer it gets. Thrown by
 * {@link StrictRequestDecoder} (Netty turns it into the request's failed decoder result) and set as
 * that result by {@link ConnectionGuard}; {@link ProtocolErrors} reads the answer back. Carries no
 * stack trace: it is the client's fault, not a bug.
 */
final class RequestRejection extends RuntimeException {
  private final ErrorResponses.ApiError error;

  RequestRejection(ErrorResponses.ApiError error) {
    super(error.message(), null, false, false);
    this.error = error;
  }

  /** A 400 with {@code code}: the request breaks HTTP/1.1's rules. */
  static RequestRejection badRequest(String code, String message) {
    return new RequestRejection(
        new ErrorResponses.ApiError(400, "invalid_request_error", code, message, null));
  }

  ErrorResponses.ApiError error() {
    return error;
  }
}
