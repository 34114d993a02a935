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

/**
 * A real HTTP frontend over the demo model (served as {@code demo}) with one worker, {@code w1},
 * behind a {@link FakeRequestPlane}: for tests of what the HTTP API answers.
 */
final class DemoFrontend {
  private DemoFrontend() {}

  /** Starts the frontend on a free loopback port of {@code vertx}; that port. */
  static int start(Vertx vertx, FakeRequestPlane plane) throws Exception {
    HttpFrontend frontend =
        new HttpFrontend(
            new Preprocessor(
                vertx,
                ModelAssets.demo(),
                "demo",
                Routers.create(
                    RouterMode.ROUND_ROBIN,
                    KvRouterConfig.DEFAULTS,
                    16,
                    List.of(RouteTarget.of(new WorkerEndpoint("w1", "127.0.0.1", 1, "generate"))),
                    plane,
                    Duration.ofSeconds(120),
                    Migration.OFF,
                    vertx,
                    new SimpleMeterRegistry()),
                OutputParsers.NONE),
            new Metrics(),
            new HttpConfig(
                "127.0.0.1", 0, 45L << 20, Duration.ofSeconds(1), 503, ConnectionLimits.DEFAULTS),
            16,
            Ticker.SYSTEM);
    return Futures.result(frontend.createServer(vertx).listen(0, "127.0.0.1")).actualPort();
  }
}
