package io.kvrouter.app;

import io.kvrouter.events.nats.NatsEventPublisher;
import io.kvrouter.events.nats.NatsSubjects;
import io.kvrouter.protocol.WorkerLoadReport;
import io.kvrouter.protocol.dynamo.DynamoEventCodec;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.dynamo.WorkerLoadCodec;

/**
 * Dynamo's NATS event plane: each event as {@code RouterEvent} JSON on {@code
 * namespace.{ns}.component.{comp}.kv_events} (kept in the subject's JetStream stream when durable),
 * load as JSON on {@code namespace.{ns}.kv_metrics}.
 */
final class NatsDynamoSink implements DynamoEventSink {
  private final NatsEventPublisher publisher;
  private final String url;
  private final String eventSubject;
  private final String loadSubject;

  private NatsDynamoSink(
      NatsEventPublisher publisher, String url, String eventSubject, String loadSubject) {
    this.publisher = publisher;
    this.url = url;
    this.eventSubject = eventSubject;
    this.loadSubject = loadSubject;
  }

  static NatsDynamoSink start(
      String url, String namespace, String component, boolean durable, String workerId) {
    String events = NatsSubjects.kvEvents(namespace, component);
    NatsEventPublisher publisher =
        NatsEventPublisher.start(
            url, "worker-" + workerId, NatsEventPublisher.DEFAULT_RECONNECT_BUFFER_BYTES);
    if (durable) {
      publisher.storeInStream(events);
    }
    return new NatsDynamoSink(publisher, url, events, WorkerLoadCodec.subject(namespace));
  }

  @Override
  public void publishEvent(DynamoRouterEvent event) {
    publisher.publish(eventSubject, DynamoEventCodec.encode(event));
  }

  @Override
  public boolean publishLoad(WorkerLoadReport load) {
    return publisher.publish(loadSubject, WorkerLoadCodec.encode(load));
  }

  @Override
  public String describe() {
    return eventSubject + " on " + url;
  }

  @Override
  public void close() {
    publisher.close();
  }
}
