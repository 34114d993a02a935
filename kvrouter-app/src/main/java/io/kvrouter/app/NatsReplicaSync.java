package io.kvrouter.app;

import io.kvrouter.common.FaultLog;
import io.kvrouter.common.Outbox;
import io.kvrouter.common.Ticker;
import io.kvrouter.config.EventPlaneConfig;
import io.kvrouter.events.nats.NatsEventPublisher;
import io.kvrouter.events.nats.NatsEventSubscriber;
import io.kvrouter.events.nats.NatsSubjects;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent;
import io.kvrouter.protocol.dynamo.ActiveSequenceEventCodec;
import io.kvrouter.protocol.dynamo.EventEnvelope;
import io.kvrouter.protocol.dynamo.EventEnvelopeCodec;
import io.kvrouter.routing.ReplicaSync;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --router-replica-sync} over NATS, as Dynamo's routers share their books ({@code
 * docs/notes/dynamo-replica-sync.md}): each booking change is one msgpack {@code
 * ActiveSequenceEvent} in an {@code EventEnvelope} (topic {@code active_sequences_events}), one per
 * message, on the workers' endpoint subject {@code
 * namespace.NS.component.C.endpoint.E.active_sequences_events}. Every router of the fleet publishes
 * there and subscribes there; a router's own events come back to it and are ignored by their router
 * id.
 *
 * <p>Booking happens on the event loops, so {@link #publish} only queues: a sender thread encodes
 * and hands the envelopes to NATS in order. When the queue (Dynamo's 100,000 events) is full or
 * NATS is unreachable, events are dropped and counted; the receivers' expiry of old bookings is
 * what corrects a lost {@code Free}.
 */
final class NatsReplicaSync implements ReplicaSync, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NatsReplicaSync.class);

  /** Events waiting for the sender, as many as Dynamo's publisher queue holds. */
  static final int OUTBOX_CAPACITY = 100_000;

  /** How long a closing link takes to send what its outbox holds. */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

  private final long routerId;
  private final long publisherId;
  private final String subject;
  private final EventPlaneConfig scope;
  private final NatsEventPublisher publisher;
  private final Outbox<ActiveSequenceEvent> outbox;
  private final Counter sent;
  private final Counter dropped;
  private final Counter received;
  private final MeterRegistry meters;
  private final FaultLog overflow = FaultLog.of(log, "replica sync events not sent");
  private volatile NatsEventSubscriber subscriber;

  /** The envelopes' sequence numbers; the outbox's thread only. */
  private long sequence;

  private NatsReplicaSync(EventPlaneConfig scope, MeterRegistry meters) {
    SecureRandom random = new SecureRandom();
    // Dynamo's router id is its discovery instance id; a random one is as unique in a fleet
    this.routerId = random.nextLong() & Long.MAX_VALUE;
    this.publisherId = EventEnvelope.randomPublisherId(random);
    this.scope = scope;
    this.meters = meters;
    this.subject =
        NatsSubjects.endpointTopic(
            scope.namespace(), scope.component(), scope.endpoint(), ActiveSequenceEventCodec.TOPIC);
    this.publisher =
        NatsEventPublisher.start(
            scope.natsServer(),
            "kvrouter-replica-sync",
            NatsEventPublisher.DEFAULT_RECONNECT_BUFFER_BYTES);
    this.sent = counter(meters, "sent");
    this.dropped = counter(meters, "dropped");
    this.received = counter(meters, "received");
    // a worker named otherwise than by a Dynamo worker id, a message above NATS's limit
    this.outbox =
        new Outbox<>(
            "kvrouter-replica-sync",
            OUTBOX_CAPACITY,
            this::send,
            e -> {
              dropped.increment();
              overflow.fault(e.toString());
            });
  }

  /**
   * Connects (in the background, retried until NATS answers) to share the books of the workers of
   * {@code scope}'s endpoint. Other routers' events flow once {@link #start} is called.
   */
  static NatsReplicaSync start(EventPlaneConfig scope, MeterRegistry meters) {
    NatsReplicaSync sync = new NatsReplicaSync(scope, meters);
    sync.outbox.start();
    log.info(
        "Replica sync: router id {} on {} at {}",
        Long.toUnsignedString(sync.routerId),
        sync.subject,
        scope.natsServer());
    return sync;
  }

  private static Counter counter(MeterRegistry meters, String direction) {
    return Counter.builder(MetricNames.REPLICA_SYNC_EVENTS)
        .tag(MetricNames.TAG_DIRECTION, direction)
        .register(meters);
  }

  @Override
  public long routerId() {
    return routerId;
  }

  @Override
  public void publish(ActiveSequenceEvent event) {
    switch (outbox.offer(event)) {
      case FULL -> {
        dropped.increment();
        overflow.fault("the outbox of " + OUTBOX_CAPACITY + " events is full");
      }
      case CLOSED -> {
        dropped.increment();
        overflow.fault("the router is stopping");
      }
      case QUEUED -> {}
    }
  }

  /** Starts the subscription; once only. */
  @Override
  public synchronized void start(Consumer<ActiveSequenceEvent> inbox) {
    if (subscriber != null) {
      throw new IllegalStateException("replica sync has an inbox already");
    }
    Consumer<byte[]> payloads =
        DynamoFollowing.decoded(
            meters,
            "replica-sync",
            "replica sync events",
            NatsReplicaSync::decode,
            event -> {
              received.increment();
              inbox.accept(event);
            });
    subscriber =
        NatsEventSubscriber.start(
            NatsEventSubscriber.Options.core(scope.natsServer(), subject)
                .withMaxMessageBytes(scope.maxMessageBytes()),
            payloads::accept,
            Ticker.SYSTEM);
  }

  /** One event out of its envelope, which must be on the replica-sync topic. */
  static ActiveSequenceEvent decode(byte[] message) {
    EventEnvelope envelope = EventEnvelopeCodec.decodeEnvelope(message);
    if (!ActiveSequenceEventCodec.TOPIC.equals(envelope.topic())) {
      throw new IllegalArgumentException(
          "envelope topic '" + envelope.topic() + "' is not " + ActiveSequenceEventCodec.TOPIC);
    }
    return ActiveSequenceEventCodec.decode(envelope.payload());
  }

  /** On the outbox's thread: one event in its envelope, with the next sequence number. */
  private void send(ActiveSequenceEvent event) {
    byte[] message =
        EventEnvelopeCodec.encodeEnvelope(
            new EventEnvelope(
                publisherId,
                sequence++,
                System.currentTimeMillis(),
                ActiveSequenceEventCodec.TOPIC,
                ActiveSequenceEventCodec.encode(event)));
    if (publisher.publish(subject, message)) {
      sent.increment();
    } else {
      dropped.increment();
      overflow.fault("NATS at " + scope.natsServer() + " took no message (see its log)");
    }
  }

  /**
   * Takes no more events, gives the sender {@link #CLOSE_WAIT} to send what the outbox holds (the
   * last {@code Free}s among them), then stops it and closes the connections (NATS is flushed).
   */
  @Override
  public void close() {
    int unsent = outbox.close(CLOSE_WAIT);
    if (unsent > 0) {
      dropped.increment(unsent);
      log.warn("Replica sync stopped with {} events unsent", unsent);
    }
    NatsEventSubscriber current = subscriber;
    if (current != null) {
      current.close();
    }
    publisher.close();
  }
}
