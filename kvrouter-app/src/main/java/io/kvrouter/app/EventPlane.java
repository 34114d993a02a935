package io.kvrouter.app;

import io.kvrouter.config.EventPlaneKind;
import io.kvrouter.config.KvEventsFormat;
import io.kvrouter.config.RouterConfig;
import io.kvrouter.config.RouterMode;
import io.kvrouter.config.WorkerSpec;
import io.kvrouter.config.WorkerSpec.KvEventSource;
import io.kvrouter.events.zmq.ZmqEventPublisher;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.routing.Router;
import io.kvrouter.transport.RequestPlane;
import io.kvrouter.worker.SimulatedEngine;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The KV event plane of a router process, when it runs {@code --router-mode kv} with KV events:
 * each in-process simulated worker publishes its cache's events on loopback, and the router
 * subscribes to those and to every rank of every {@code --worker} with a {@code kv-events}
 * endpoint: in vLLM's format through {@link KvEventSubscriptions}, in Dynamo's through {@link
 * ZmqDynamoEvents}.
 */
final class EventPlane implements AutoCloseable {
  private final List<ZmqEventPublisher> publishers;
  private final StartedParts subscriptions;

  private EventPlane(List<ZmqEventPublisher> publishers, StartedParts subscriptions) {
    this.publishers = publishers;
    this.subscriptions = subscriptions;
  }

  /** The worker id of the {@code index}th (from 0) simulated worker. */
  static String mockWorkerId(int index) {
    return "mock-" + (index + 1);
  }

  /** Starts the event plane {@code config} asks for; one that does nothing outside kv mode. */
  static EventPlane start(
      RouterConfig config,
      List<SimulatedEngine> mockEngines,
      Router router,
      RequestPlane plane,
      MeterRegistry meters) {
    StartedParts subscriptions = new StartedParts();
    if (config.routerMode() != RouterMode.KV || !config.kv().kvEvents()) {
      return new EventPlane(List.of(), subscriptions);
    }
    if (config.eventPlane().kind() == EventPlaneKind.NATS) {
      // config validation keeps --mock-workers out of nats mode
      subscriptions.add(
          "NATS KV events",
          NatsKvEvents.start(
              config.eventPlane(),
              config.workers(),
              WorkerEndpoints.generate(config),
              router,
              plane,
              meters));
      return new EventPlane(List.of(), subscriptions);
    }
    Map<WorkerRank, KvEventSource> sources = rankSources(config.workers());
    List<WorkerSpec> dynamoWorkers = ZmqDynamoEvents.publishers(config.workers());
    List<ZmqEventPublisher> publishers = new ArrayList<>();
    try {
      if (!dynamoWorkers.isEmpty()) {
        subscriptions.add(
            "Dynamo ZMQ KV events",
            ZmqDynamoEvents.start(
                dynamoWorkers,
                WorkerEndpoints.generate(config),
                router,
                plane,
                config.eventPlane().maxMessageBytes(),
                meters));
      }
      for (int i = 0; i < mockEngines.size(); i++) {
        ZmqEventPublisher publisher =
            SimulatedWorkerEvents.publish(
                mockEngines.get(i), ZmqEventPublisher.Options.defaults("127.0.0.1"));
        publishers.add(publisher);
        sources.put(
            WorkerRank.of(mockWorkerId(i)),
            new KvEventSource(
                "tcp://127.0.0.1:" + publisher.port(),
                "tcp://127.0.0.1:" + publisher.replayPort()));
      }
      if (!sources.isEmpty()) {
        subscriptions.add(
            "vLLM KV events",
            KvEventSubscriptions.start(
                sources,
                router,
                config.model().kvCacheBlockSize(),
                config.eventPlane().maxMessageBytes(),
                meters));
      }
      return new EventPlane(publishers, subscriptions);
    } catch (RuntimeException e) {
      // nothing of a half-started event plane may outlive the failed start
      subscriptions.closeParts();
      publishers.forEach(ZmqEventPublisher::close);
      throw e;
    }
  }

  /**
   * The publisher of every rank of every worker with {@code kv-events} in vLLM's format: rank
   * {@code r} of a {@code dp-size=N} worker publishes on the base ports plus {@code r}, as vLLM
   * does.
   */
  static Map<WorkerRank, KvEventSource> rankSources(List<WorkerSpec> workers) {
    Map<WorkerRank, KvEventSource> sources = new LinkedHashMap<>();
    for (WorkerSpec worker : workers) {
      worker
          .kvEvents()
          .filter(source -> source.format() == KvEventsFormat.VLLM)
          .ifPresent(
              source -> {
                for (int dp = 0; dp < worker.dpSize(); dp++) {
                  sources.put(new WorkerRank(worker.id(), dp), source.forRank(dp));
                }
              });
    }
    return sources;
  }

  /** Stops subscribers, then publishers; blocks until their threads end (not for an event loop). */
  @Override
  public void close() {
    try {
      subscriptions.closeParts();
    } finally {
      publishers.forEach(ZmqEventPublisher::close);
    }
  }
}
