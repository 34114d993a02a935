package io.kvrouter.app;

import io.kvrouter.config.NatsEventFormat;
import io.kvrouter.config.WorkerEventsConfig;
import io.kvrouter.discovery.EventTransport;
import io.kvrouter.events.nats.NatsEventPublisher;
import io.kvrouter.events.nats.NatsSubjects;
import io.kvrouter.protocol.WorkerLoadReport;
import io.kvrouter.protocol.dynamo.DynamoEventCodec;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.dynamo.EventEnvelope;
import io.kvrouter.protocol.dynamo.EventEnvelopeCodec;
import io.kvrouter.protocol.dynamo.WorkerLoadCodec;
import java.security.SecureRandom;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Dynamo's NATS event plane, as a Dynamo worker publishes on it ({@code docs/interop.md} §10.1):
 *
 * <ul>
 *   <li><b>envelope</b> (v1.5 and later): each rank is its own publisher, with a random 53-bit id
 *       and a sequence counting from 0, sending each event as a one-event msgpack batch in an
 *       {@code EventEnvelope} (topic {@code kv-events}) on {@code
 *       namespace.NS.component.C.endpoint.E.kv-events}; the worker's load goes out the same way
 *       from one more publisher (topic {@code kv_metrics}, an msgpack {@code ActiveLoad}) on {@code
 *       ….endpoint.E.kv_metrics}. The envelope is the whole NATS message (no frame header: that is
 *       ZMQ's);
 *   <li><b>json</b> (v1.4 and earlier): each event as {@code RouterEvent} JSON on {@code
 *       namespace.NS.component.C.kv_events} (kept in the subject's JetStream stream when durable),
 *       load as JSON on {@code namespace.NS.kv_metrics}.
 * </ul>
 */
final class NatsDynamoSink implements DynamoEventSink {
  private final NatsEventPublisher publisher;
  private final String url;
  private final NatsEventFormat format;
  private final String eventSubject;
  private final String loadSubject;
  private final Publisher[] rankPublishers;
  private final Publisher loadPublisher;

  /** One publisher of envelopes: its id, and its sequence (guarded by the object's lock). */
  private static final class Publisher {
    final long id;
    long sequence;

    Publisher(long id) {
      this.id = id;
    }

    /** The next envelope; the caller holds this publisher's lock. */
    byte[] envelope(String topic, byte[] payload) {
      return EventEnvelopeCodec.encodeEnvelope(
          new EventEnvelope(id, sequence++, System.currentTimeMillis(), topic, payload));
    }
  }

  private NatsDynamoSink(
      NatsEventPublisher publisher,
      String url,
      NatsEventFormat format,
      String eventSubject,
      String loadSubject,
      int ranks) {
    this.publisher = publisher;
    this.url = url;
    this.format = format;
    this.eventSubject = eventSubject;
    this.loadSubject = loadSubject;
    SecureRandom random = new SecureRandom();
    this.rankPublishers = new Publisher[ranks];
    for (int dp = 0; dp < ranks; dp++) {
      rankPublishers[dp] = new Publisher(EventEnvelope.randomPublisherId(random));
    }
    this.loadPublisher = new Publisher(EventEnvelope.randomPublisherId(random));
  }

  /** Publishes the events of data-parallel ranks {@code 0..ranks-1} as {@code events} says. */
  static NatsDynamoSink start(WorkerEventsConfig events, int ranks) {
    String eventSubject =
        NatsSubjects.kvEvents(
            events.natsFormat(), events.namespace(), events.component(), events.endpoint());
    String loadSubject =
        NatsSubjects.loads(
            events.natsFormat(), events.namespace(), events.component(), events.endpoint());
    NatsEventPublisher publisher =
        NatsEventPublisher.start(
            events.natsServer(),
            "worker-" + events.workerId(),
            NatsEventPublisher.DEFAULT_RECONNECT_BUFFER_BYTES);
    if (events.durable()) {
      publisher.storeInStream(eventSubject);
    }
    return new NatsDynamoSink(
        publisher,
        events.natsServer().toString(),
        events.natsFormat(),
        eventSubject,
        loadSubject,
        ranks);
  }

  @Override
  public void publishEvent(DynamoRouterEvent event) {
    if (format == NatsEventFormat.JSON) {
      publisher.publish(eventSubject, DynamoEventCodec.encode(event));
      return;
    }
    Publisher rank = rankPublishers[event.event().worker().dpRank()];
    // the lock keeps the sequence in the order the messages are handed to NATS
    synchronized (rank) {
      publisher.publish(
          eventSubject,
          rank.envelope(
              DynamoMsgpackCodec.KV_EVENTS_TOPIC, DynamoMsgpackCodec.encodeBatch(List.of(event))));
    }
  }

  @Override
  public boolean publishLoad(WorkerLoadReport load) {
    if (format == NatsEventFormat.JSON) {
      return publisher.publish(loadSubject, WorkerLoadCodec.encode(load));
    }
    synchronized (loadPublisher) {
      return publisher.publish(
          loadSubject,
          loadPublisher.envelope(
              DynamoMsgpackCodec.KV_METRICS_TOPIC, DynamoMsgpackCodec.encodeLoad(load)));
    }
  }

  @Override
  public OptionalLong publisherId(int dpRank) {
    return format == NatsEventFormat.JSON
        ? OptionalLong.empty()
        : OptionalLong.of(rankPublishers[dpRank].id);
  }

  /** Envelopes go on {@code {subject_prefix}.kv-events}: the channel names the prefix. */
  @Override
  public Optional<EventTransport> eventChannel() {
    String suffix = "." + DynamoMsgpackCodec.KV_EVENTS_TOPIC;
    return format == NatsEventFormat.JSON
        ? Optional.empty()
        : Optional.of(
            new EventTransport.Nats(
                eventSubject.substring(0, eventSubject.length() - suffix.length())));
  }

  /** Load envelopes go on {@code {subject_prefix}.kv_metrics}, from their own publisher. */
  @Override
  public Optional<LoadChannel> loadChannel() {
    return eventChannel().map(channel -> new LoadChannel(loadPublisher.id, channel));
  }

  @Override
  public String describe() {
    return eventSubject + " on " + url + " (" + format.configName() + ")";
  }

  @Override
  public void close() {
    publisher.close();
  }
}
