package io.kvrouter.frontend;

import io.vertx.ext.web.RoutingContext;

/** Which requests are for the OpenAI routes: {@code /v1} and below, one trailing slash ignored. */
final class OpenAiRoutes {
  private OpenAiRoutes() {}

  /** Whether {@code ctx}'s path is an OpenAI route's; false for a path that cannot be decoded. */
  static boolean contains(RoutingContext ctx) {
    String path;
    try {
      path = ctx.normalizedPath();
    } catch (IllegalArgumentException undecodable) {
      return false;
    }
    return path.equals("/v1") || path.equals("/v1/") || path.startsWith("/v1/");
  }
}
