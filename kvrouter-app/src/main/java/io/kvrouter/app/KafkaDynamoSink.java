package io.kvrouter.app;

import io.kvrouter.config.WorkerEventsConfig;
import io.kvrouter.discovery.EventTransport;
import io.kvrouter.events.kafka.KafkaEventPublisher;
import io.kvrouter.events.kafka.KafkaTopics;
import io.kvrouter.protocol.WorkerLoadReport;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The Kafka event plane as a simulated worker publishes on it ({@link KafkaTopics}): each event as
 * a one-event msgpack {@code RouterEvent} batch on the endpoint's {@code kv-events} topic, each
 * load report as a msgpack {@code ActiveLoad} on {@code kv-metrics}, both keyed by the worker's id.
 * No envelope: Kafka orders and numbers the records itself, and the events carry their ids.
 * Recovery queries are answered at each rank's {@code worker_kv_indexer_query_dp{rank}}.
 */
final class KafkaDynamoSink implements DynamoEventSink {
  private final KafkaEventPublisher publisher;
  private final String eventTopic;
  private final String loadTopic;
  private final String key;
  private final String servers;

  private KafkaDynamoSink(
      KafkaEventPublisher publisher,
      String eventTopic,
      String loadTopic,
      String key,
      String servers) {
    this.publisher = publisher;
    this.eventTopic = eventTopic;
    this.loadTopic = loadTopic;
    this.key = key;
    this.servers = servers;
  }

  static KafkaDynamoSink start(WorkerEventsConfig events) {
    // the names first: nothing is started for a name Kafka would refuse
    String eventTopic =
        KafkaTopics.kvEvents(
            events.kafka(), events.namespace(), events.component(), events.endpoint());
    String loadTopic =
        KafkaTopics.kvMetrics(
            events.kafka(), events.namespace(), events.component(), events.endpoint());
    return new KafkaDynamoSink(
        KafkaEventPublisher.start(events.kafka(), "worker-" + events.workerId()),
        eventTopic,
        loadTopic,
        events.workerId(),
        events.kafka().bootstrapServers());
  }

  @Override
  public void publishEvent(DynamoRouterEvent event) {
    publisher.publish(eventTopic, key, DynamoMsgpackCodec.encodeBatch(List.of(event)));
  }

  @Override
  public boolean publishLoad(WorkerLoadReport load) {
    return publisher.publish(loadTopic, key, DynamoMsgpackCodec.encodeLoad(load));
  }

  @Override
  public OptionalLong publisherId(int dpRank) {
    return OptionalLong.empty();
  }

  /** Dynamo registers no Kafka channel: routers find the topics by name. */
  @Override
  public Optional<EventTransport> eventChannel() {
    return Optional.empty();
  }

  @Override
  public Optional<LoadChannel> loadChannel() {
    return Optional.empty();
  }

  @Override
  public String describe() {
    return eventTopic + " on Kafka at " + servers;
  }

  @Override
  public void close() {
    publisher.close();
  }
}
