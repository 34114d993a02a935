package io.kvrouter.app;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.EventPlaneConfig;
import io.kvrouter.config.NatsEventFormat;
import io.kvrouter.config.WorkerSpec;
import io.kvrouter.events.DynamoEventFollower;
import io.kvrouter.events.nats.NatsEventSubscriber;
import io.kvrouter.events.nats.NatsSubjects;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec;
import io.kvrouter.protocol.dynamo.EventEnvelopeCodec;
import io.kvrouter.protocol.dynamo.WorkerLoadCodec;
import io.kvrouter.routing.Router;
import io.kvrouter.transport.RequestPlane;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The router's side of Dynamo's NATS event plane ({@code --event-plane nats}), in either of its
 * formats ({@code --nats-event-format}, {@code docs/interop.md} §10.1):
 *
 * <ul>
 *   <li><b>envelope</b> (Dynamo v1.5 and later): msgpack {@code EventEnvelope}s on the endpoint's
 *       {@code kv-events} subject, each carrying a batch of {@code RouterEvent}s, feed a {@link
 *       DynamoEventFollower}; the envelopes' publisher ids name the workers' recovery endpoints.
 *       Load reports are enveloped msgpack {@code ActiveLoad}s on the endpoint's {@code kv_metrics}
 *       subject;
 *   <li><b>json</b> (Dynamo v1.4 and earlier): one {@code RouterEvent} as JSON per message on the
 *       component's {@code kv_events} subject (core, or a JetStream durable consumer), load as JSON
 *       on the namespace's {@code kv_metrics}.
 * </ul>
 *
 * <p>Recovery questions go to each worker over the request plane ({@link RequestPlaneRecovery}).
 * After a core subscription reconnects, every worker is asked for a tree dump: whatever was
 * published meanwhile is lost. A durable consumer gets it delivered instead.
 */
final class NatsKvEvents implements AutoCloseable {
  private final DynamoEventFollower follower;
  private final NatsEventSubscriber events;
  private final NatsEventSubscriber loads;

  private NatsKvEvents(
      DynamoEventFollower follower, NatsEventSubscriber events, NatsEventSubscriber loads) {
    this.follower = follower;
    this.events = events;
    this.loads = loads;
  }

  static NatsKvEvents start(
      EventPlaneConfig config,
      List<WorkerSpec> workers,
      Map<String, WorkerEndpoint> endpoints,
      Router router,
      RequestPlane plane,
      MeterRegistry meters) {
    boolean enveloped = config.natsFormat() == NatsEventFormat.ENVELOPE;
    DynamoEventFollower follower =
        DynamoFollowing.follower(workers, endpoints, router, plane, config.durable(), meters);
    StartedParts started = new StartedParts();
    started.add("KV event follower", follower);
    try {
      List<WorkerRank> ranks = DynamoFollowing.ranks(workers);
      String subject =
          NatsSubjects.kvEvents(
              config.natsFormat(), config.namespace(), config.component(), config.endpoint());
      NatsEventSubscriber.Options options =
          (config.durable()
                  ? NatsEventSubscriber.Options.durable(
                      config.natsServer(), subject, config.durableName())
                  : NatsEventSubscriber.Options.core(config.natsServer(), subject))
              .withMaxMessageBytes(config.maxMessageBytes());
      Consumer<byte[]> payloads =
          enveloped
              ? DynamoFollowing.decoded(
                  meters,
                  "dynamo-nats",
                  "KV event envelopes",
                  EventEnvelopeCodec::decodeEnvelope,
                  follower::onEnvelope)
              : follower::onMessage;
      NatsEventSubscriber events =
          NatsEventSubscriber.start(
              options,
              new NatsEventSubscriber.Listener() {
                @Override
                public void message(byte[] payload) {
                  payloads.accept(payload);
                }

                @Override
                public void connected(boolean reconnect) {
                  if (!reconnect) {
                    // ask for every rank's state once questions can reach the workers
                    ranks.forEach(follower::follow);
                  } else if (!config.durable()) {
                    follower.resyncAll();
                  }
                }
              },
              Ticker.SYSTEM);
      started.add("KV event subscription", events);
      countOversized(meters, "dynamo", events);
      NatsEventSubscriber loads = followLoads(config, router, meters);
      countOversized(meters, "dynamo-load", loads);
      return new NatsKvEvents(follower, events, loads);
    } catch (RuntimeException e) {
      started.closeParts();
      throw e;
    }
  }

  private static void countOversized(
      MeterRegistry meters, String format, NatsEventSubscriber subscriber) {
    FunctionCounter.builder(MetricNames.KV_EVENT_OVERSIZED, subscriber, s -> s.stats().oversized())
        .tag(MetricNames.TAG_FORMAT, format)
        .register(meters);
  }

  private static NatsEventSubscriber followLoads(
      EventPlaneConfig config, Router router, MeterRegistry meters) {
    boolean enveloped = config.natsFormat() == NatsEventFormat.ENVELOPE;
    String subject =
        NatsSubjects.loads(
            config.natsFormat(), config.namespace(), config.component(), config.endpoint());
    return NatsEventSubscriber.start(
        NatsEventSubscriber.Options.core(config.natsServer(), subject)
            .withMaxMessageBytes(config.maxMessageBytes()),
        DynamoFollowing.loadReports(
                router,
                meters,
                "dynamo-load",
                enveloped
                    ? bytes ->
                        DynamoMsgpackCodec.decodeLoad(
                            EventEnvelopeCodec.decodeEnvelope(bytes).payload())
                    : WorkerLoadCodec::decode)
            ::accept,
        Ticker.SYSTEM);
  }

  @Override
  public void close() {
    loads.close();
    events.close();
    follower.close();
  }
}
