package io.kvrouter.frontend;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.ConnectionLimits;
import io.kvrouter.config.HttpConfig;
import io.kvrouter.config.KvRouterConfig;
import io.kvrouter.config.RouterMode;
import io.kvrouter.metrics.Metrics;
import io.kvrouter.preprocess.ModelAssets;
import io.kvrouter.preprocess.OutputParsers;
import io.kvrouter.preprocess.Preprocessor;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.routing.Migration;
import io.kvrouter.routing.RouteTarget;
import io.kvrouter.routing.Routers;
import io.kvrouter.testing.FakeRequestPlane;
import io.kvrouter.testing.Futures;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A real HTTP frontend over the demo model with one worker per model behind a {@link
 * FakeRequestPlane}: for tests of what the HTTP API answers.
 */
final class DemoFrontend {
  private DemoFrontend() {}

  /**
   * Starts the frontend serving the demo model as {@code demo} with one worker, {@code w1}, on a
   * free loopback port of {@code vertx}; that port.
   */
  static int start(Vertx vertx, FakeRequestPlane plane) throws Exception {
    return start(vertx, plane, Map.of("demo", "w1"));
  }

  /**
   * Starts the frontend serving the demo model under each name of {@code workerByModel}, each model
   * with its own router and its one worker; the port.
   */
  static int start(Vertx vertx, FakeRequestPlane plane, Map<String, String> workerByModel)
      throws Exception {
    return serve(vertx, plane, workerByModel).port();
  }

  /** A started frontend: its port, and the models it serves (for tests that change them). */
  record Served(int port, ServedModels models) {}

  /** As {@link #start(Vertx, FakeRequestPlane, Map)}, with the served models. */
  static Served serve(Vertx vertx, FakeRequestPlane plane, Map<String, String> workerByModel)
      throws Exception {
    Metrics metrics = new Metrics();
    ServedModels models = new ServedModels(metrics, Ticker.SYSTEM);
    workerByModel.forEach(
        (model, worker) ->
            models.add(
                new Preprocessor(
                    vertx,
                    ModelAssets.demo(),
                    model,
                    Routers.create(
                        RouterMode.ROUND_ROBIN,
                        KvRouterConfig.DEFAULTS,
                        16,
                        List.of(
                            RouteTarget.of(new WorkerEndpoint(worker, "127.0.0.1", 1, "generate"))),
                        plane,
                        Duration.ofSeconds(120),
                        Migration.OFF,
                        vertx,
                        new SimpleMeterRegistry()),
                    OutputParsers.NONE),
                16));
    HttpFrontend frontend =
        new HttpFrontend(
            models,
            metrics,
            new HttpConfig(
                "127.0.0.1", 0, 45L << 20, Duration.ofSeconds(1), 503, ConnectionLimits.DEFAULTS));
    return new Served(
        Futures.result(frontend.createServer(vertx).listen(0, "127.0.0.1")).actualPort(), models);
  }
}
