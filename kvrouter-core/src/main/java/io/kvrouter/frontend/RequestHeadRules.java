package io.kvrouter.frontend;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The rules of RFC 9112 a request head must keep before its body may be read, which Netty's decoder
 * lets through: each broken one is a {@link RequestRejection}, answered before any route sees the
 * request, and the connection is closed since the body's end can no longer be found.
 *
 * <ul>
 *   <li>HTTP/1.1 needs exactly one {@code Host} header, and no version allows two (§3.2).
 *   <li>{@code Content-Length} and {@code Transfer-Encoding} together are refused (§6.1): two
 *       framings that disagree are how requests are smuggled past a proxy.
 *   <li>{@code Transfer-Encoding} must end in {@code chunked}, once (§6.3: else 400), name no
 *       coding besides it (§6.1: 501, the router decodes none), and is refused in HTTP/1.0 (§6.1:
 *       its framing is faulty).
 * </ul>
 */
final class RequestHeadRules {
  private RequestHeadRules() {}

  /** Throws {@link RequestRejection} when {@code request}'s head breaks a rule. */
  static void check(HttpRequest request) {
    HttpHeaders headers = request.headers();
    int hosts = headers.getAll(HttpHeaderNames.HOST).size();
    if (hosts > 1) {
      throw RequestRejection.badRequest(
          "duplicate_host", "The request has more than one Host header");
    }
    if (hosts == 0 && request.protocolVersion() == HttpVersion.HTTP_1_1) {
      throw RequestRejection.badRequest(
          "missing_host", "An HTTP/1.1 request must have a Host header");
    }
    List<String> codings = transferCodings(headers);
    if (codings.isEmpty()) {
      return;
    }
    if (request.protocolVersion() != HttpVersion.HTTP_1_1) {
      throw RequestRejection.badRequest(
          "invalid_transfer_encoding", "Transfer-Encoding is not allowed in an HTTP/1.0 request");
    }
    if (headers.contains(HttpHeaderNames.CONTENT_LENGTH)) {
      throw RequestRejection.badRequest(
          "ambiguous_framing",
          "The request has both Content-Length and Transfer-Encoding; send one of them");
    }
    if (!codings.get(codings.size() - 1).equals("chunked")
        || codings.indexOf("chunked") != codings.size() - 1) {
      throw RequestRejection.badRequest(
          "invalid_transfer_encoding",
          "Transfer-Encoding must end in chunked, applied once; got " + String.join(", ", codings));
    }
    if (codings.size() > 1) {
      throw new RequestRejection(
          new ErrorResponses.ApiError(
              501,
              "invalid_request_error",
              "unsupported_transfer_encoding",
              "Only the chunked transfer coding is supported; got " + String.join(", ", codings),
              null));
    }
  }

  /** The transfer codings named by every {@code Transfer-Encoding} header, in order, lowercase. */
  private static List<String> transferCodings(HttpHeaders headers) {
    List<String> codings = new ArrayList<>(1);
    for (String value : headers.getAll(HttpHeaderNames.TRANSFER_ENCODING)) {
      for (String coding : value.split(",", -1)) {
        codings.add(coding.strip().toLowerCase(Locale.ROOT));
      }
    }
    return codings;
  }
}
