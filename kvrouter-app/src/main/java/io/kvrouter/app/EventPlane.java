package io.kvrouter.app;

import io.kvrouter.config.EventPlaneConfig;
import io.kvrouter.config.EventPlaneKind;
import io.kvrouter.config.RouterConfig;
import io.kvrouter.config.RouterMode;
import io.kvrouter.config.WorkerSpec;
import io.kvrouter.config.WorkerSpec.KvEventSource;
import io.kvrouter.discovery.EventChannelRecord;
import io.kvrouter.events.zmq.ZmqEventPublisher;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.snapshot.IndexSnapshot;
import io.kvrouter.routing.Router;
import io.kvrouter.transport.RequestPlane;
import io.kvrouter.worker.SimulatedEngine;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The KV event plane of a router process, when it runs {@code --router-mode kv} with KV events:
 * each in-process simulated worker publishes its cache's events on loopback, and the router follows
 * the events of every worker in its {@link WorkerFleet} that publishes them: in vLLM's format
 * through {@link KvEventSubscriptions}, in Dynamo's through {@link ZmqDynamoEvents}, or on NATS
 * through {@link NatsKvEvents}. Outside kv mode with events it follows nothing.
 */
final class EventPlane implements WorkerEventSources {
  private static final Logger log = LoggerFactory.getLogger(EventPlane.class);

  private final List<ZmqEventPublisher> publishers;
  private final List<WorkerEventSources> sources;

  /** The Dynamo ZMQ subscriptions, or null on NATS or without KV events. */
  private final ZmqDynamoEvents dynamoZmq;

  /** The keeper of the index snapshots ({@code --router-index-snapshots}), or null. */
  private final IndexSnapshotKeeper snapshots;

  private EventPlane(
      List<ZmqEventPublisher> publishers,
      List<WorkerEventSources> sources,
      ZmqDynamoEvents dynamoZmq,
      IndexSnapshotKeeper snapshots) {
    this.publishers = publishers;
    this.sources = sources;
    this.dynamoZmq = dynamoZmq;
    this.snapshots = snapshots;
  }

  /** The worker id of the {@code index}th (from 0) simulated worker. */
  static String mockWorkerId(int index) {
    return "mock-" + (index + 1);
  }

  /**
   * What one model's event plane follows.
   *
   * @param model the model's name (an index snapshot is the endpoint's and the model's)
   * @param events the plane, and on NATS the endpoint whose subjects carry the model's events
   * @param blockSize the model's KV block size (vLLM's events name no block size)
   * @param discovered whether the workers come from discovery: their Dynamo ZMQ publishers are then
   *     the event channels discovery reports ({@link #channelUp}), and every worker's ranks are
   *     followed that answers recovery queries
   * @param publishers what discovery says of each worker's publishers ({@link
   *     DiscoveredPublishers#NONE} without discovery)
   */
  record Scope(
      String model,
      EventPlaneConfig events,
      int blockSize,
      boolean discovered,
      DiscoveredPublishers publishers) {}

  /**
   * Starts the event plane {@code config} asks for, following no worker yet: the simulated workers'
   * publishers, and the subscriptions ready for the workers that join.
   */
  static EventPlane start(
      Vertx vertx,
      RouterConfig config,
      Scope scope,
      List<SimulatedEngine> mockEngines,
      Router router,
      RequestPlane plane,
      MeterRegistry meters) {
    // plain engines report their load on /metrics, in every mode
    EngineMetrics engines = new EngineMetrics(vertx, router, scope.blockSize(), config.engineTls());
    if (config.routerMode() != RouterMode.KV || !config.kv().kvEvents()) {
      return new EventPlane(List.of(), List.of(engines), null, null);
    }
    // config validation keeps --mock-workers out of the nats and kafka planes
    if (scope.events().kind() != EventPlaneKind.ZMQ) {
      return startSharedFeed(config, scope, router, plane, meters, engines);
    }
    List<ZmqEventPublisher> publishers = new ArrayList<>();
    List<WorkerEventSources> sources = new ArrayList<>(List.of(engines));
    ZmqDynamoEvents dynamo = null;
    try {
      dynamo =
          ZmqDynamoEvents.start(
              router,
              plane,
              scope.events().maxMessageBytes(),
              scope.discovered(),
              scope.publishers(),
              meters);
      sources.add(dynamo);
      sources.add(
          new KvEventSubscriptions(
              router, scope.blockSize(), scope.events().maxMessageBytes(), meters));
      for (SimulatedEngine engine : mockEngines) {
        publishers.add(
            SimulatedWorkerEvents.publish(engine, ZmqEventPublisher.Options.defaults("127.0.0.1")));
      }
      return new EventPlane(publishers, sources, dynamo, null);
    } catch (RuntimeException e) {
      // nothing of a half-started event plane may outlive the failed start
      new EventPlane(publishers, sources, dynamo, null).close();
      throw e;
    }
  }

  /**
   * The nats or kafka plane: one feed for every worker, started from the fleet's index snapshot
   * when there is one and {@code --router-index-snapshots} asks for it.
   */
  private static EventPlane startSharedFeed(
      RouterConfig config,
      Scope scope,
      Router router,
      RequestPlane plane,
      MeterRegistry meters,
      EngineMetrics engines) {
    IndexSnapshotKeeper keeper =
        config.indexSnapshots().enabled()
            ? IndexSnapshotKeeper.of(config.indexSnapshots(), scope.events(), scope.model(), meters)
            : null;
    try {
      Optional<IndexSnapshot> snapshot = keeper == null ? Optional.empty() : keeper.load();
      SharedFeed feed =
          scope.events().kind() == EventPlaneKind.NATS
              ? NatsKvEvents.start(
                  scope.events(), router, plane, scope.publishers(), snapshot, meters)
              : KafkaKvEvents.start(
                  scope.events(), router, plane, scope.publishers(), snapshot, meters);
      if (keeper != null) {
        keeper.startWriting(feed.follower, () -> router.dumpKvIndex().orElseThrow());
      }
      return new EventPlane(List.of(), List.of(feed, engines), null, keeper);
    } catch (RuntimeException e) {
      if (keeper != null) {
        keeper.close();
      }
      throw e;
    }
  }

  /**
   * A Dynamo event channel of the model's workers was discovered: on the ZMQ plane its publisher is
   * subscribed (once per endpoint and topic, however many channels name it). Channels of other
   * transports are followed by subject (NATS), so nothing is done for them.
   */
  void channelUp(EventChannelRecord channel) {
    if (dynamoZmq != null) {
      dynamoZmq.channelUp(channel);
    }
  }

  /** The channel is gone: its publisher is unsubscribed once no channel names it. */
  void channelDown(String channelKey) {
    if (dynamoZmq != null) {
      dynamoZmq.channelDown(channelKey);
    }
  }

  /**
   * Where the {@code index}th (from 0) simulated worker publishes its events; empty when the router
   * follows none.
   */
  Optional<KvEventSource> mockSource(int index) {
    if (publishers.isEmpty()) {
      return Optional.empty();
    }
    ZmqEventPublisher publisher = publishers.get(index);
    return Optional.of(
        new KvEventSource(
            "tcp://127.0.0.1:" + publisher.port(), "tcp://127.0.0.1:" + publisher.replayPort()));
  }

  @Override
  public void follow(WorkerSpec worker, WorkerEndpoint endpoint) {
    List<WorkerEventSources> started = new ArrayList<>();
    try {
      for (WorkerEventSources source : sources) {
        source.follow(worker, endpoint);
        started.add(source);
      }
    } catch (RuntimeException e) {
      started.forEach(source -> source.unfollow(worker.id()));
      throw e;
    }
  }

  /** Every kind stops following the worker, even when one of them fails to. */
  @Override
  public void unfollow(String workerId) {
    for (WorkerEventSources source : sources) {
      try {
        source.unfollow(workerId);
      } catch (RuntimeException e) {
        log.warn("stopping to follow the KV events of worker {} failed", workerId, e);
      }
    }
  }

  /** Stops subscribers, then publishers; blocks until their threads end (not for an event loop). */
  @Override
  public void close() {
    if (snapshots != null) {
      snapshots.close(); // no snapshot is taken of a closing feed
    }
    try {
      for (WorkerEventSources source : sources) {
        try {
          source.close();
        } catch (RuntimeException e) {
          log.warn("closing a KV event subscription failed", e);
        }
      }
    } finally {
      publishers.forEach(ZmqEventPublisher::close);
    }
  }
}
