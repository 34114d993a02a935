package io.kvrouter.app;

import io.kvrouter.config.EventPlaneKind;
import io.kvrouter.config.RouterConfig;
import io.kvrouter.config.RouterMode;
import io.kvrouter.config.WorkerSpec;
import io.kvrouter.config.WorkerSpec.KvEventSource;
import io.kvrouter.events.zmq.ZmqEventPublisher;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.routing.Router;
import io.kvrouter.transport.RequestPlane;
import io.kvrouter.worker.SimulatedEngine;
import io.micrometer.core.instrument.MeterRegistry;
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

  private EventPlane(List<ZmqEventPublisher> publishers, List<WorkerEventSources> sources) {
    this.publishers = publishers;
    this.sources = sources;
  }

  /** The worker id of the {@code index}th (from 0) simulated worker. */
  static String mockWorkerId(int index) {
    return "mock-" + (index + 1);
  }

  /**
   * Starts the event plane {@code config} asks for, following no worker yet: the simulated workers'
   * publishers, and the subscriptions ready for the workers that join.
   */
  static EventPlane start(
      RouterConfig config,
      List<SimulatedEngine> mockEngines,
      Router router,
      RequestPlane plane,
      MeterRegistry meters) {
    if (config.routerMode() != RouterMode.KV || !config.kv().kvEvents()) {
      return new EventPlane(List.of(), List.of());
    }
    if (config.eventPlane().kind() == EventPlaneKind.NATS) {
      // config validation keeps --mock-workers out of nats mode
      return new EventPlane(
          List.of(), List.of(NatsKvEvents.start(config.eventPlane(), router, plane, meters)));
    }
    List<ZmqEventPublisher> publishers = new ArrayList<>();
    List<WorkerEventSources> sources = new ArrayList<>();
    try {
      sources.add(
          ZmqDynamoEvents.start(router, plane, config.eventPlane().maxMessageBytes(), meters));
      sources.add(
          new KvEventSubscriptions(
              router,
              config.model().kvCacheBlockSize(),
              config.eventPlane().maxMessageBytes(),
              meters));
      for (SimulatedEngine engine : mockEngines) {
        publishers.add(
            SimulatedWorkerEvents.publish(engine, ZmqEventPublisher.Options.defaults("127.0.0.1")));
      }
      return new EventPlane(publishers, sources);
    } catch (RuntimeException e) {
      // nothing of a half-started event plane may outlive the failed start
      new EventPlane(publishers, sources).close();
      throw e;
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
