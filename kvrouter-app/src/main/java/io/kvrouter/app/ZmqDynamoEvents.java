package io.kvrouter.app;

import io.kvrouter.config.KvEventsFormat;
import io.kvrouter.config.WorkerSpec;
import io.kvrouter.config.WorkerSpec.KvEventSource;
import io.kvrouter.discovery.EventChannelRecord;
import io.kvrouter.discovery.EventTransport;
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
 * <p>With discovery the publishers are not named per worker: they are the event channels discovery
 * reports ({@link #channelUp}; Dynamo's channel ids are random publisher ids, tied to no instance),
 * each subscribed once per endpoint and topic however many channels name it, and the events say
 * which worker and rank they are for. Every worker that joins then has its ranks followed.
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

  private final DiscoveredPublishers publishers;

  /** Whether workers come from discovery, with their publishers as channels. */
  private final boolean discovered;

  /** Each followed worker's subscribers; under {@code this}. */
  private final Map<String, List<DynamoZmqSubscriber>> byWorker = new HashMap<>();

  /** The discovered channels' publisher, by channel key; under {@code this}. */
  private final Map<String, String> channels = new HashMap<>();

  /** One subscriber per publisher endpoint and topic, with the channels naming it. */
  private final Map<String, SharedSubscriber> subscribed = new HashMap<>();

  private static final class SharedSubscriber {
    final DynamoZmqSubscriber subscriber;
    int channels;

    SharedSubscriber(DynamoZmqSubscriber subscriber) {
      this.subscriber = subscriber;
    }
  }

  private ZmqDynamoEvents(
      DynamoEventFollower follower,
      Router router,
      Faults faults,
      Consumer<byte[]> loadReports,
      Map<String, WorkerEndpoint> endpoints,
      boolean discovered,
      DiscoveredPublishers publishers) {
    this.publishers = publishers;
    this.follower = follower;
    this.router = router;
    this.faults = faults;
    this.loadReports = loadReports;
    this.endpoints = endpoints;
    this.discovered = discovered;
  }

  /**
   * Ready to follow the workers that join; nothing is followed yet.
   *
   * @param maxMessageBytes the largest frame taken from a publisher
   * @param discovered whether the workers and their publishers come from discovery
   */
  static ZmqDynamoEvents start(
      Router router,
      RequestPlane plane,
      long maxMessageBytes,
      boolean discovered,
      DiscoveredPublishers publishers,
      MeterRegistry meters) {
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
        DynamoFollowing.follower(endpoints, router, plane, false, publishers, meters),
        router,
        new Faults(maxMessageBytes, malformed, oversized),
        DynamoFollowing.loadReports(router, meters, "dynamo-load", DynamoMsgpackCodec::decodeLoad),
        endpoints,
        discovered,
        publishers);
  }

  /** The frame limit, and where the messages dropped are counted. */
  private record Faults(long maxMessageBytes, Counter malformed, Counter oversized) {}

  @Override
  public synchronized void follow(WorkerSpec worker, WorkerEndpoint endpoint) {
    KvEventSource source = worker.kvEvents().orElse(null);
    if (source == null || source.format() != KvEventsFormat.DYNAMO) {
      if (discovered) {
        // its publishers are discovery's channels, subscribed apart from the worker; its events
        // are taken from now on, and with a local indexer its state is asked for at once
        endpoints.put(worker.id(), endpoint);
        DynamoFollowing.reportFeeds(router, follower, worker);
        byWorker.put(worker.id(), List.of());
        if (publishers.answersQueries(worker.id())) {
          DynamoFollowing.ranks(worker).forEach(follower::follow);
        }
      }
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

  /**
   * Subscribes the publisher of {@code channel} when it is a ZMQ one with topic {@code kv-events}
   * or {@code kv_metrics}; a publisher already subscribed for another channel is shared.
   */
  synchronized void channelUp(EventChannelRecord channel) {
    if (!(channel.transport() instanceof EventTransport.Zmq zmq)
        || channels.containsKey(channel.key())) {
      return;
    }
    String topic = channel.topic();
    Consumer<EventEnvelope> envelopes;
    if (topic.equals(DynamoMsgpackCodec.KV_EVENTS_TOPIC)) {
      envelopes = follower::onEnvelope;
    } else if (topic.equals(DynamoMsgpackCodec.KV_METRICS_TOPIC)) {
      envelopes = envelope -> loadReports.accept(envelope.payload());
    } else {
      return;
    }
    String publisher = zmq.endpoint() + " " + topic;
    SharedSubscriber shared = subscribed.get(publisher);
    if (shared == null) {
      shared = new SharedSubscriber(subscribe(zmq.endpoint(), topic, envelopes));
      subscribed.put(publisher, shared);
    }
    shared.channels++;
    channels.put(channel.key(), publisher);
  }

  /** The channel is gone; its publisher is unsubscribed once no channel names it. */
  synchronized void channelDown(String channelKey) {
    String publisher = channels.remove(channelKey);
    if (publisher == null) {
      return;
    }
    SharedSubscriber shared = subscribed.get(publisher);
    if (--shared.channels == 0) {
      subscribed.remove(publisher);
      shared.subscriber.close();
    }
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
      subscribed.values().forEach(shared -> shared.subscriber.close());
      subscribed.clear();
      channels.clear();
    } finally {
      follower.close();
    }
  }
}
