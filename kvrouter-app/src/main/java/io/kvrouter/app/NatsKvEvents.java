package io.kvrouter.app;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.EventPlaneConfig;
import io.kvrouter.config.NatsEventFormat;
import io.kvrouter.events.DynamoEventFollower;
import io.kvrouter.events.nats.NatsEventSubscriber;
import io.kvrouter.events.nats.NatsSubjects;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec;
import io.kvrouter.protocol.dynamo.EventEnvelopeCodec;
import io.kvrouter.protocol.dynamo.WorkerLoadCodec;
import io.kvrouter.protocol.snapshot.IndexSnapshot;
import io.kvrouter.routing.Router;
import io.kvrouter.transport.RequestPlane;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *
 * <p>The subjects are shared by every worker ({@link SharedFeed}).
 */
final class NatsKvEvents {
  private static final Logger log = LoggerFactory.getLogger(NatsKvEvents.class);

  /** The longest the router's start waits for its NATS subscriptions. */
  static final Duration SUBSCRIBE_WAIT = Duration.ofSeconds(10);

  private NatsKvEvents() {}

  /**
   * Subscribes; the workers are followed as they join. With a {@code snapshot}, the index starts
   * from it, and each worker is asked only for the events after it.
   */
  static SharedFeed start(
      EventPlaneConfig config,
      Router router,
      RequestPlane plane,
      DiscoveredPublishers publishers,
      Optional<IndexSnapshot> snapshot,
      MeterRegistry meters) {
    boolean enveloped = config.natsFormat() == NatsEventFormat.ENVELOPE;
    SharedFeed feed =
        SharedFeed.create(router, plane, config.durable(), publishers, snapshot, meters);
    DynamoEventFollower follower = feed.follower;
    try {
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
                    // ask for every rank's state now that nothing published after is missed
                    feed.up();
                  } else if (!config.durable()) {
                    follower.resyncAll();
                  }
                }
              },
              Ticker.SYSTEM);
      feed.attach(events);
      countOversized(meters, "dynamo", events);
      NatsEventSubscriber loads = followLoads(config, router, meters);
      feed.attach(loads);
      countOversized(meters, "dynamo-load", loads);
      awaitSubscribed(config, events, loads);
      return feed;
    } catch (RuntimeException e) {
      feed.close();
      throw e;
    }
  }

  /**
   * Waits (up to {@link #SUBSCRIBE_WAIT}) until both subscriptions are in place, so that a router
   * does not report ready while its workers' first events would still go unheard: a v1.5 worker's
   * recovery endpoint is named by the publisher in its envelopes. Past the wait the router starts
   * anyway and follows the events once NATS answers. Called off the event loops (the event plane
   * starts in a blocking task).
   */
  private static void awaitSubscribed(EventPlaneConfig config, NatsEventSubscriber... subscribers) {
    long deadline = System.nanoTime() + SUBSCRIBE_WAIT.toNanos();
    try {
      for (NatsEventSubscriber subscriber : subscribers) {
        Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        if (!subscriber.awaitSubscribed(left)) {
          log.warn(
              "NATS at {} does not answer yet: the router starts, and follows the KV events once"
                  + " it does",
              config.natsServer());
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
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
}
