package io.kvrouter.routing;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.KvRouterConfig;
import io.kvrouter.config.RouterMode;
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.routing.schedule.TtftModel;
import io.kvrouter.transport.RequestPlane;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Random;

/** Creates the router for a {@link RouterMode}. */
public final class Routers {
  private Routers() {}

  /**
   * A router over {@code workers} in {@code mode}; more may join later ({@link Router#addWorker}).
   *
   * @param kv the KV router's settings, used in {@link RouterMode#KV} and {@link RouterMode#APPROX}
   * @param blockSize tokens per KV block of the workers, as the router hashes prompts
   * @param streamIdleTimeout how long a response stream may stay silent before it is given up and
   *     its worker taken out of rotation ({@code --worker-stream-idle-timeout-secs})
   * @param migration how often a request whose stream breaks after output may continue on another
   *     worker ({@code --migration-limit})
   * @param meters where the router registers its meters
   */
  public static Router create(
      RouterMode mode,
      KvRouterConfig kv,
      int blockSize,
      List<RouteTarget> workers,
      RequestPlane plane,
      Duration streamIdleTimeout,
      Migration migration,
      Vertx vertx,
      MeterRegistry meters) {
    return create(
        mode, kv, blockSize, workers, plane, streamIdleTimeout, migration, null, vertx, meters);
  }

  /**
   * A router as {@link #create(RouterMode, KvRouterConfig, int, List, RequestPlane, Duration,
   * Migration, Vertx, MeterRegistry)} makes it, whose KV policy shares its books of requests in
   * flight over {@code sync} ({@code --router-replica-sync}).
   *
   * @param sync the link to the other routers of the fleet; null keeps the books local
   */
  public static Router create(
      RouterMode mode,
      KvRouterConfig kv,
      int blockSize,
      List<RouteTarget> workers,
      RequestPlane plane,
      Duration streamIdleTimeout,
      Migration migration,
      ReplicaSync sync,
      Vertx vertx,
      MeterRegistry meters) {
    List<WorkerState> states =
        workers.stream().map(target -> new WorkerState(target, Ticker.SYSTEM)).toList();
    return new PushRouter(
        states,
        plane,
        policy(mode, kv, blockSize, sync, vertx, meters),
        BlockHasher.of(blockSize),
        new HealthProber(vertx, plane, meters),
        StalledStreams.start(vertx, streamIdleTimeout, Ticker.SYSTEM),
        migration,
        meters);
  }

  /**
   * The live router's policy of {@code mode}: called from every event loop, with the system clock,
   * randomly seeded; a KV policy's index, timers and meters (gauges for every rank of the workers
   * that join) start with it.
   */
  static RoutingPolicy policy(
      RouterMode mode, KvRouterConfig kv, int blockSize, Vertx vertx, MeterRegistry meters) {
    return policy(mode, kv, blockSize, null, vertx, meters);
  }

  /** As {@link #policy(RouterMode, KvRouterConfig, int, Vertx, MeterRegistry)}, shared by sync. */
  private static RoutingPolicy policy(
      RouterMode mode,
      KvRouterConfig kv,
      int blockSize,
      ReplicaSync sync,
      Vertx vertx,
      MeterRegistry meters) {
    PolicySettings settings =
        new PolicySettings(
            blockSize, kv, TtftModel.MOCKER.chunkTokens(), new Random(), Ticker.SYSTEM);
    return RoutingPolicies.create(
        mode,
        settings,
        (kvMode, approximate) ->
            KvPolicy.start(kvMode, settings, approximate, sync, vertx, meters));
  }
}
