package io.kvrouter.frontend;

import io.kvrouter.config.CorsOrigins;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.SecurityPolicyHandler;

/**
 * Cross-origin access to the OpenAI routes ({@code /v1/...}), for the origins of {@code
 * --allowed-origins}; nothing at all without them, and nothing ever for {@code /metrics}, {@code
 * /router/...} or the probes.
 *
 * <p>With origins configured, it runs before the API-key check: a preflight ({@code OPTIONS} with
 * {@code Origin} and {@code Access-Control-Request-Method}) carries no {@code Authorization}
 * header, so one from an allowed origin is answered here, 204, with the methods ({@code GET,
 * POST}), the headers it asked to send ({@link CorsRequestHeaders}: {@code Authorization} and the
 * SDK's own) and how long the browser may keep the answer. Every other request goes on to the key
 * check, an actual request from an allowed origin carrying {@code Access-Control-Allow-Origin} (so
 * its 401 is readable too) and {@code Access-Control-Expose-Headers} with {@link #EXPOSED_HEADERS}:
 * the request id and what a client needs to pace itself, {@code Retry-After} and {@code
 * retry-after-ms} of a 429 ({@link ErrorResponses}) and the {@code x-ratelimit-*} headers of the
 * per-key limits ({@link RateLimitHeaders}), which the OpenAI SDKs read. A request from any other
 * origin, a preflight included, gets no CORS header: the browser then refuses the page the answer.
 * Responses say {@code Vary: Origin}, as they differ by it; a preflight's also {@code
 * Access-Control-Request-Headers}.
 *
 * <p>Credentials (cookies, HTTP authentication kept by the browser) are never allowed, whatever the
 * origins: the keys travel in {@code Authorization}, which a page sets itself, and a browser never
 * attaches a router key on its own.
 */
final class CorsPolicy implements SecurityPolicyHandler {
  static final String ALLOWED_METHODS = "GET, POST";

  /** The response headers a page may read, besides the ones every browser lets it read. */
  static final String EXPOSED_HEADERS =
      String.join(
          ", ",
          RequestIds.HEADER,
          "Retry-After",
          "retry-after-ms",
          "x-ratelimit-limit-requests",
          "x-ratelimit-remaining-requests",
          "x-ratelimit-reset-requests",
          "x-ratelimit-limit-tokens",
          "x-ratelimit-remaining-tokens",
          "x-ratelimit-reset-tokens");

  /** How long a browser may keep a preflight's answer, in seconds. */
  static final String MAX_AGE_SECONDS = "600";

  private final CorsOrigins origins;

  CorsPolicy(CorsOrigins origins) {
    this.origins = origins;
  }

  @Override
  public void handle(RoutingContext ctx) {
    if (!origins.enabled() || !OpenAiRoutes.contains(ctx)) {
      ctx.next();
      return;
    }
    HttpServerRequest request = ctx.request();
    HttpServerResponse response = ctx.response();
    response.headers().add(HttpHeaders.VARY, "Origin");
    String origin = request.getHeader(HttpHeaders.ORIGIN);
    if (!origins.allows(origin)) {
      ctx.next();
      return;
    }
    response.putHeader(
        HttpHeaders.ACCESS_CONTROL_ALLOW_ORIGIN, origins.anyOrigin() ? CorsOrigins.ANY : origin);
    if (request.method() == HttpMethod.OPTIONS
        && request.getHeader(HttpHeaders.ACCESS_CONTROL_REQUEST_METHOD) != null) {
      response.headers().add(HttpHeaders.VARY, "Access-Control-Request-Headers");
      response
          .putHeader(HttpHeaders.ACCESS_CONTROL_ALLOW_METHODS, ALLOWED_METHODS)
          .putHeader(
              HttpHeaders.ACCESS_CONTROL_ALLOW_HEADERS,
              CorsRequestHeaders.allowed(
                  request.getHeader(HttpHeaders.ACCESS_CONTROL_REQUEST_HEADERS)))
          .putHeader(HttpHeaders.ACCESS_CONTROL_MAX_AGE, MAX_AGE_SECONDS)
          .setStatusCode(204)
          .end();
      return;
    }
    response.putHeader(HttpHeaders.ACCESS_CONTROL_EXPOSE_HEADERS, EXPOSED_HEADERS);
    ctx.next();
  }
}
