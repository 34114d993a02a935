package io.kvrouter.app;

import io.kvrouter.config.HttpConfig;
import io.kvrouter.frontend.HttpFrontend;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;

/**
 * One HTTP server of the frontend on its own event loop; several instances share the port, so every
 * core serves HTTP.
 */
final class FrontendVerticle extends VerticleBase {
  private final HttpFrontend frontend;
  private final HttpConfig config;
  private HttpServer server;

  FrontendVerticle(HttpFrontend frontend, HttpConfig config) {
    this.frontend = frontend;
    this.config = config;
  }

  @Override
  public Future<?> start() {
    server = frontend.createServer(vertx);
    return server.listen(config.port(), config.host());
  }

  int port() {
    return server.actualPort();
  }
}
