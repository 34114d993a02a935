package io.kvrouter.routing;

import io.kvrouter.config.KvRouterConfig;
import io.kvrouter.config.RouterMode;
import io.kvrouter.transport.RequestPlane;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.SplittableRandom;

/** Creates the router for a {@link RouterMode}. */
public final class Routers {
  private Routers() {}

  /**
   * A router over {@code workers} in {@code mode}.
   *
   * @param kv the KV router's settings, used in {@link RouterMode#KV}
   * @param blockSize tokens per KV block of the workers, used in {@link RouterMode#KV}
   * @param meters where the router registers its meters
   */
  public static Router create(
      RouterMode mode,
      KvRouterConfig kv,
      int blockSize,
      List<RouteTarget> workers,
      RequestPlane plane,
      Vertx vertx,
      MeterRegistry meters) {
    List<WorkerState> states = workers.stream().map(WorkerState::new).toList();
    WorkerSelector selector =
        switch (mode) {
          case ROUND_ROBIN -> new RoundRobinSelector();
          case RANDOM -> new RandomSelector(new SplittableRandom());
          case KV -> KvWorkerSelector.start(kv, blockSize, states, vertx, meters);
        };
    return new PushRouter(states, plane, selector, new HealthProber(vertx, plane), meters);
  }
}
