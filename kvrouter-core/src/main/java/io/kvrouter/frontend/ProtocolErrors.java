package io.kvrouter.frontend;

import io.netty.handler.codec.http.InvalidLineSeparatorException;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;

/**
 * The OpenAI error answered to a request whose head could not be decoded: why Netty's decoder
 * refused it (or {@link RequestHeadRules} did) becomes a status and a code.
 */
final class ProtocolErrors {
  private ProtocolErrors() {}

  static ErrorResponses.ApiError of(Throwable cause) {
    if (cause instanceof RequestRejection rejection) {
      return rejection.error();
    }
    if (cause instanceof TooLongHttpLineException) {
      return error(414, "uri_too_long", "The request line is too long: " + cause.getMessage());
    }
    if (cause instanceof TooLongHttpHeaderException) {
      return error(
          431,
          "header_fields_too_large",
          "The request headers are too large: " + cause.getMessage());
    }
    if (cause instanceof InvalidLineSeparatorException) {
      return error(400, "invalid_line_ending", "Every line of the request head must end in CR LF");
    }
    return error(400, "malformed_request", "Malformed HTTP request" + inputFault(cause));
  }

  /** The answer to a request whose chunked body is malformed. */
  static ErrorResponses.ApiError malformedBody(Throwable cause) {
    return error(400, "malformed_body", "Malformed chunked request body" + inputFault(cause));
  }

  /**
   * What Netty's decoder found wrong with the client's bytes, as {@code ": message"}: the message
   * of the innermost cause when it is an {@link IllegalArgumentException} (a bad header name or
   * value, a bad number: what the decoder says of its input); nothing otherwise, since any other
   * exception's message may say more of the router than of the request. A wrapping exception's
   * message names its cause's class, so only the innermost is read.
   */
  static String inputFault(Throwable cause) {
    Throwable root = cause;
    while (root != null && root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root instanceof IllegalArgumentException && root.getMessage() != null
        ? ": " + root.getMessage()
        : "";
  }

  private static ErrorResponses.ApiError error(int status, String code, String message) {
    return new ErrorResponses.ApiError(status, "invalid_request_error", code, message, null);
  }
}
