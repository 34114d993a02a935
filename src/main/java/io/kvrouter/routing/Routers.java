package io.kvrouter.routing;

import io.kvrouter.config.RouterMode;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.transport.RequestPlane;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.SplittableRandom;

/** Creates the router for a {@link RouterMode}. */
public final class Routers {
  private Routers() {}

  public static Router create(
      RouterMode mode, List<WorkerEndpoint> workers, RequestPlane plane, Vertx vertx) {
    WorkerSelector selector =
        switch (mode) {
          case ROUND_ROBIN -> new RoundRobinSelector();
          case RANDOM -> new RandomSelector(new SplittableRandom());
        };
    return new PushRouter(workers, plane, selector, new HealthProber(vertx, plane));
  }
}
