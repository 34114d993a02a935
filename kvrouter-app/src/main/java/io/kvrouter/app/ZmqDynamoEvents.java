package io.kvrouter.app;

import io.kvrouter.config.KvEventsFormat;
import io.kvrouter.config.WorkerSpec;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The router's side of Dynamo's ZMQ event plane, for the {@code --worker}s with {@code
 * events-format=dynamo}: one SUB socket reads topic {@code kv-events} from every such worker's
 * {@code kv-events=} endpoint and feeds a {@link DynamoEventFollower}, whose recovery questions go
 * over the request plane; another reads topic {@code kv_metrics} from their {@code kv-metrics=}
 * endpoints, when given, and hands the load reports to the router.
 *
 * <p>PUB/SUB says nothing about lost messages; the follower notices them from the events' own ids,
 * and asks every rank for its state at start, since a new router has missed everything.
 */
final class ZmqDynamoEvents implements AutoCloseable {
  private final StartedParts parts;

  private ZmqDynamoEvents(StartedParts parts) {
    this.parts = parts;
  }

  /** The workers among {@code workers} that publish Dynamo's format over ZMQ. */
  static List<WorkerSpec> publishers(List<WorkerSpec> workers) {
    return workers.stream()
        .filter(w -> w.kvEvents().map(e -> e.format() == KvEventsFormat.DYNAMO).orElse(false))
        .toList();
  }

  /**
   * Follows {@code workers} (each with {@code events-format=dynamo}); at least one.
   *
   * @param maxMessageBytes the largest frame taken from a publisher
   */
  static ZmqDynamoEvents start(
      List<WorkerSpec> workers,
      Map<String, WorkerEndpoint> endpoints,
      Router router,
      RequestPlane plane,
      long maxMessageBytes,
      MeterRegistry meters) {
    StartedParts parts = new StartedParts();
    try {
      DynamoEventFollower follower =
          DynamoFollowing.follower(workers, endpoints, router, plane, false, meters);
      parts.add("KV event follower", follower);
      Counter malformed =
          Counter.builder(MetricNames.KV_EVENT_MALFORMED)
              .tag(MetricNames.TAG_FORMAT, "dynamo-zmq")
              .register(meters);
      Counter oversized =
          Counter.builder(MetricNames.KV_EVENT_OVERSIZED)
              .tag(MetricNames.TAG_FORMAT, "dynamo-zmq")
              .register(meters);
      Faults faults = new Faults(maxMessageBytes, malformed, oversized);
      List<String> events =
          workers.stream().map(w -> w.kvEvents().orElseThrow().endpoint()).toList();
      parts.add(
          "KV event subscription",
          subscribe(events, DynamoMsgpackCodec.KV_EVENTS_TOPIC, follower::onEnvelope, faults));
      List<String> loads =
          workers.stream()
              .map(w -> w.kvEvents().orElseThrow().metricsEndpoint())
              .flatMap(Optional::stream)
              .toList();
      if (!loads.isEmpty()) {
        Consumer<byte[]> reports =
            DynamoFollowing.loadReports(
                router, meters, "dynamo-load", DynamoMsgpackCodec::decodeLoad);
        parts.add(
            "load report subscription",
            subscribe(
                loads,
                DynamoMsgpackCodec.KV_METRICS_TOPIC,
                envelope -> reports.accept(envelope.payload()),
                faults));
      }
      DynamoFollowing.ranks(workers).forEach(follower::follow);
      return new ZmqDynamoEvents(parts);
    } catch (RuntimeException e) {
      parts.closeParts();
      throw e;
    }
  }

  /** The frame limit, and where the messages dropped are counted. */
  private record Faults(long maxMessageBytes, Counter malformed, Counter oversized) {}

  private static DynamoZmqSubscriber subscribe(
      List<String> endpoints, String topic, Consumer<EventEnvelope> envelopes, Faults faults) {
    return new DynamoZmqSubscriber(
            endpoints,
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
  public void close() {
    parts.closeParts();
  }
}
