package io.kvrouter.frontend;

import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.impl.VertxHttpRequestDecoder;

/**
 * Vert.x's request decoder with the checks of {@link RequestHeadRules} and a refusal of HTTP
 * versions other than 1.0 and 1.1 (505). A refused request becomes Netty's invalid message: the
 * decoder discards the rest of the connection's bytes and Vert.x hands the request to the server's
 * invalid-request handler, which answers and closes the connection.
 *
 * <p>Netty offers no hook after the head is parsed and before the body's framing is decided except
 * {@link #isContentAlwaysEmpty}, which it calls for every request at exactly that point (with both
 * {@code Content-Length} and {@code Transfer-Encoding} still present, before it drops the former);
 * the rules run there. {@code HttpFramingIT} pins that behaviour for the Netty version in use.
 */
final class StrictRequestDecoder extends VertxHttpRequestDecoder {

  StrictRequestDecoder(HttpServerOptions options) {
    super(options);
  }

  @Override
  protected HttpMessage createMessage(String[] initialLine) {
    HttpMessage message = super.createMessage(initialLine);
    HttpVersion version = message.protocolVersion();
    if (version != HttpVersion.HTTP_1_1 && version != HttpVersion.HTTP_1_0) {
      throw new RequestRejection(
          new ErrorResponses.ApiError(
              505,
              "invalid_request_error",
              "http_version_not_supported",
              "Only HTTP/1.1 and HTTP/1.0 are supported",
              null));
    }
    return message;
  }

  @Override
  protected boolean isContentAlwaysEmpty(HttpMessage message) {
    if (message instanceof HttpRequest request) {
      RequestHeadRules.check(request);
    }
    return super.isContentAlwaysEmpty(message);
  }
}
