package io.kvrouter.app;

import io.kvrouter.config.EventPlaneConfig;
import io.kvrouter.config.RouterConfig;
import io.kvrouter.config.WorkerSpec;
import io.kvrouter.discovery.EventChannelRecord;
import io.kvrouter.metrics.Metrics;
import io.kvrouter.metrics.ModelMeters;
import io.kvrouter.preprocess.ModelAssets;
import io.kvrouter.preprocess.OutputParsers;
import io.kvrouter.preprocess.Preprocessor;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.routing.Migration;
import io.kvrouter.routing.Router;
import io.kvrouter.routing.Routers;
import io.kvrouter.transport.RequestPlane;
import io.kvrouter.worker.SimulatedEngine;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.function.Function;

/**
 * Everything one served model has of its own: its router (KV index, loads, policy), the event plane
 * that keeps that index true, the set of workers that serve it, and the preprocessor (tokenizer,
 * template) requests for it go through. A router process has one for {@code --model-path}, or one
 * per model card discovery finds.
 */
final class ModelDeployment implements AutoCloseable {
  /**
   * What a model is served with.
   *
   * @param name what requests' {@code model} names
   * @param assets its tokenizer, template and context length
   * @param blockSize tokens per KV block
   * @param migrationLimit how often a broken stream may move to another worker
   * @param events its event plane (on NATS: the endpoint whose subjects carry its events)
   * @param discovered whether its workers and event channels come from discovery
   */
  record Model(
      String name,
      ModelAssets assets,
      OutputParsers parsers,
      int blockSize,
      int migrationLimit,
      EventPlaneConfig events,
      boolean discovered) {}

  private final Model model;
  private final Router router;
  private final EventPlane events;
  private final WorkerFleet fleet;
  private final Preprocessor preprocessor;
  private final DiscoveredPublishers publishers;

  /** The link sharing the router's books with the fleet's other routers; null without. */
  private final NatsReplicaSync replicaSync;

  /** The model's own meters (tagged with its name) when it was discovered, else null. */
  private final ModelMeters modelMeters;

  private ModelDeployment(
      Model model,
      Router router,
      EventPlane events,
      WorkerFleet fleet,
      Preprocessor preprocessor,
      DiscoveredPublishers publishers,
      NatsReplicaSync replicaSync,
      ModelMeters modelMeters) {
    this.publishers = publishers;
    this.replicaSync = replicaSync;
    this.modelMeters = modelMeters;
    this.model = model;
    this.router = router;
    this.events = events;
    this.fleet = fleet;
    this.preprocessor = preprocessor;
  }

  /**
   * Builds a model's parts, with no worker yet; the router is not started. Blocks while the event
   * plane's sockets bind and connect: not for an event loop.
   *
   * @param mockEngines the in-process simulated workers whose events it publishes
   * @param endpoints where a worker that joins by its spec alone is reached
   */
  static ModelDeployment create(
      Vertx vertx,
      RouterConfig config,
      Model model,
      List<SimulatedEngine> mockEngines,
      RequestPlane plane,
      Metrics metrics,
      Function<WorkerSpec, WorkerEndpoint> endpoints) {
    // several models' meters of one name must be several series: tagged with the model
    ModelMeters modelMeters = model.discovered() ? metrics.forModel(model.name()) : null;
    MeterRegistry meters = modelMeters == null ? metrics.registry() : modelMeters.registry();
    // the fleet's routers share the books of the workers of the model's endpoint
    NatsReplicaSync replicaSync =
        config.replicaSync() ? NatsReplicaSync.start(model.events(), meters) : null;
    Router router;
    try {
      router =
          Routers.create(
              config.routerMode(),
              config.kv(),
              model.blockSize(),
              List.of(),
              plane,
              config.workerStreamIdleTimeout(),
              new Migration(model.migrationLimit(), model.name()),
              replicaSync,
              vertx,
              meters);
    } catch (RuntimeException e) {
      closeStarted(replicaSync, modelMeters);
      throw e;
    }
    DiscoveredPublishers publishers =
        model.discovered() ? new DiscoveredPublishers() : DiscoveredPublishers.NONE;
    EventPlane events;
    try {
      events =
          EventPlane.start(
              vertx,
              config,
              new EventPlane.Scope(
                  model.name(), model.events(), model.blockSize(), model.discovered(), publishers),
              mockEngines,
              router,
              plane,
              meters);
    } catch (RuntimeException e) {
      router.close();
      closeStarted(replicaSync, modelMeters);
      throw e;
    }
    return new ModelDeployment(
        model,
        router,
        events,
        new WorkerFleet(router, events, endpoints),
        new Preprocessor(vertx, model.assets(), model.name(), router, model.parsers()),
        publishers,
        replicaSync,
        modelMeters);
  }

  /** Closes what a failed start had started (either may be null). */
  private static void closeStarted(NatsReplicaSync replicaSync, ModelMeters modelMeters) {
    if (replicaSync != null) {
      replicaSync.close();
    }
    if (modelMeters != null) {
      modelMeters.close();
    }
  }

  /** What discovery says of each of its workers' event publishers. */
  DiscoveredPublishers publishers() {
    return publishers;
  }

  Model model() {
    return model;
  }

  Router router() {
    return router;
  }

  WorkerFleet fleet() {
    return fleet;
  }

  EventPlane events() {
    return events;
  }

  Preprocessor preprocessor() {
    return preprocessor;
  }

  void channelUp(EventChannelRecord channel) {
    events.channelUp(channel);
  }

  void channelDown(String channelKey) {
    events.channelDown(channelKey);
  }

  /**
   * Closes the event plane, then the router and its replica sync, then removes the model's own
   * meters. Blocks until the event plane's threads end.
   */
  @Override
  public void close() {
    try {
      events.close();
    } finally {
      router.close();
      if (replicaSync != null) {
        replicaSync.close();
      }
      if (modelMeters != null) {
        modelMeters.close();
      }
    }
  }
}
