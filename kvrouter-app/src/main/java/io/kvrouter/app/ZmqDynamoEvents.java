package io.kvrouter.app;

import io.kvrouter.config.KvEventsFormat;
import io.kvrouter.config.WorkerSpec;
import io.kvrouter.config.WorkerSpec.KvEventSource;
import io.kvrouter.events.DynamoEventFollower;
import io.kvrouter.events.zmq.DynamoZmqSubscriber;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec;
import io.kvrouter.protocol.dynamo.EventEnvelope;
import io.kvrouter.routing.Router;
import io.kvrouter.transport.RequestPlane;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The router's side of Dynamo's ZMQ event plane, for the workers with {@code events-format=dynamo}:
 * per worker, one SUB socket reads topic {@code kv-events} from its {@code kv-events=} endpoint and
 * feeds the shared {@link DynamoEventFollower}, whose recovery questions go over the request plane;
 * another reads topic {@code kv_metrics} from its {@code kv-metrics=} endpoint, when given, and
 * hands the load reports to the router. A worker's sockets open when it joins and close when it
 * leaves, and the follower then forgets its ranks.
 *
 * <p>PUB/SUB says nothing about lost messages; the follower notices them from the events' own ids,
 * and asks every rank of a joining worker for its state, since the router has missed everything
 * before.
 */
final class ZmqDynamoEvents implements WorkerEventSources {
  private final DynamoEventFollower follower;
  private final Router router;
  private final Faults faults;
  private final Consumer<byte[]> loadReports;

  /** The generate endpoint of each followed worker, where its recovery questions go. */
  private final Map<String, WorkerEndpoint> endpoints;

  /** Each followed worker's subscribers; under {@code this}. */
  private final Map<String, List<DynamoZmqSubscriber>> byWorker = new HashMap<>();

  private ZmqDynamoEvents(
      DynamoEventFollower follower,
      Router router,
      Faults faults,
      Consumer<byte[]> loadReports,
      Map<String, WorkerEndpoint> endpoints) {
    this.follower = follower;
    this.router = router;
    this.faults = faults;
    this.loadReports = loadReports;
    this.endpoints = endpoints;
  }

  /**
   * Ready to follow the workers that join; nothing is followed yet.
   *
   * @param maxMessageBytes the largest frame taken from a publisher
   */
  static ZmqDynamoEvents start(
      Router router, RequestPlane plane, long maxMessageBytes, MeterRegistry meters) {
    Map<String, WorkerEndpoint> endpoints = new ConcurrentHashMap<>();
    Counter malformed =
        Counter.builder(MetricNames.KV_EVENT_MALFORMED)
            .tag(MetricNames.TAG_FORMAT, "dynamo-zmq")
            .register(meters);
    Counter oversized =
        Counter.builder(MetricNames.KV_EVENT_OVERSIZED)
            .tag(MetricNames.TAG_FORMAT, "dynamo-zmq")
            .register(meters);
    return new ZmqDynamoEvents(
        DynamoFollowing.follower(endpoints, router, plane, false, meters),
        router,
        new Faults(maxMessageBytes, malformed, oversized),
        DynamoFollowing.loadReports(router, meters, "dynamo-load", DynamoMsgpackCodec::decodeLoad),
        endpoints);
  }

  /** The frame limit, and where the messages dropped are counted. */
  private record Faults(long maxMessageBytes, Counter malformed, Counter oversized) {}

  @Override
  public synchronized void follow(WorkerSpec worker, WorkerEndpoint endpoint) {
    KvEventSource source = worker.kvEvents().orElse(null);
    if (source == null || source.format() != KvEventsFormat.DYNAMO) {
      return;
    }
    endpoints.put(worker.id(), endpoint);
    DynamoFollowing.reportFeeds(router, follower, worker);
    List<DynamoZmqSubscriber> started = new ArrayList<>();
    try {
      started.add(
          subscribe(source.endpoint(), DynamoMsgpackCodec.KV_EVENTS_TOPIC, follower::onEnvelope));
      source
          .metricsEndpoint()
          .ifPresent(
              loads ->
                  started.add(
                      subscribe(
                          loads,
                          DynamoMsgpackCodec.KV_METRICS_TOPIC,
                          envelope -> loadReports.accept(envelope.payload()))));
    } catch (RuntimeException e) {
      started.forEach(DynamoZmqSubscriber::close);
      endpoints.remove(worker.id());
      throw e;
    }
    byWorker.put(worker.id(), started);
    DynamoFollowing.ranks(worker).forEach(follower::follow);
  }

  @Override
  public synchronized void unfollow(String workerId) {
    List<DynamoZmqSubscriber> gone = byWorker.remove(workerId);
    if (gone == null) {
      return;
    }
    gone.forEach(DynamoZmqSubscriber::close);
    follower.forget(workerId);
    endpoints.remove(workerId);
  }

  private DynamoZmqSubscriber subscribe(
      String endpoint, String topic, Consumer<EventEnvelope> envelopes) {
    return new DynamoZmqSubscriber(
            List.of(endpoint),
            topic,
            faults.maxMessageBytes(),
            new DynamoZmqSubscriber.Listener() {
              @Override
              public void onEnvelope(EventEnvelope envelope) {
                envelopes.accept(envelope);
              }

              @Override
              public void onMalformed(String reason) {
                faults.malformed().increment();
              }

              @Override
              public void onOversized(String endpoint) {
                faults.oversized().increment();
              }
            })
        .start();
  }

  /** Stops the subscriptions, then the follower. */
  @Override
  public synchronized void close() {
    try {
      byWorker.values().forEach(subscribers -> subscribers.forEach(DynamoZmqSubscriber::close));
      byWorker.clear();
    } finally {
      follower.close();
    }
  }
}
