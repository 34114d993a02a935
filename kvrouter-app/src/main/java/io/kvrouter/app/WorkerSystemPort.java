package io.kvrouter.app;

import io.kvrouter.metrics.Metrics;
import io.kvrouter.worker.SimulatedEngine;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * A worker's system port, as Dynamo workers serve it: {@code /metrics} (Prometheus), {@code
 * /health}, and {@code /kv/state}, every block a rank's KV cache holds.
 */
final class WorkerSystemPort {
  private final Metrics metrics;
  private final List<SimulatedEngine> ranks;

  private WorkerSystemPort(Metrics metrics, List<SimulatedEngine> ranks) {
    this.metrics = metrics;
    this.ranks = ranks;
  }

  /** Serves it on {@code host}:{@code port}; the future gives the port it listens on. */
  static Future<Integer> serve(
      Vertx vertx, Metrics metrics, List<SimulatedEngine> ranks, String host, int port) {
    WorkerSystemPort system = new WorkerSystemPort(metrics, ranks);
    return vertx
        .createHttpServer()
        .requestHandler(system::handle)
        .listen(port, host)
        .map(server -> server.actualPort());
  }

  private void handle(HttpServerRequest request) {
    switch (request.path()) {
      case "/metrics" ->
          request
              .response()
              .putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8")
              .end(metrics.scrape());
      case "/kv/state" -> kvState(request);
      case "/health" ->
          request
              .response()
              .putHeader("content-type", "application/json")
              .end(
                  new JsonObject()
                      .put("status", "ready")
                      .put(
                          "active_requests",
                          ranks.stream().mapToInt(SimulatedEngine::activeRequests).sum())
                      .encode());
      default -> request.response().setStatusCode(404).end();
    }
  }

  /** {@code ?dp_rank=R} picks a data-parallel rank's cache; rank 0 by default. */
  private void kvState(HttpServerRequest request) {
    String raw = request.getParam("dp_rank", "0");
    int dp;
    try {
      dp = Integer.parseInt(raw);
    } catch (NumberFormatException e) {
      dp = -1;
    }
    if (dp < 0 || dp >= ranks.size()) {
      request
          .response()
          .setStatusCode(400)
          .end("dp_rank must be from 0 to " + (ranks.size() - 1) + ", not " + raw);
    } else {
      request
          .response()
          .putHeader("content-type", "application/json")
          .end(SimulatedWorkerEvents.stateJson(ranks.get(dp).kvCache().snapshot()).encode());
    }
  }
}
