package io.kvrouter.events.kafka;

import io.kvrouter.common.FaultLog;
import io.kvrouter.common.Outbox;
import io.kvrouter.config.KafkaConfig;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes a worker's event payloads on Kafka topics, keyed, without ever making its caller wait:
 * {@link #publish} queues, and a sender thread hands the records to an idempotent producer ({@code
 * acks=all}), which keeps each key's records in order in their partition through retries and broker
 * restarts.
 *
 * <p>What is lost, and logged (at most one WARN a minute): a record that finds the queue ({@link
 * #QUEUE_CAPACITY}) full or the publisher closed, one whose partition has no leader for a minute
 * ({@code max.block.ms}: no broker), and one the producer gives up on (no broker for {@code
 * delivery.timeout.ms}, two minutes by default: a broker restart within that loses nothing). While
 * no broker answers, the sender waits and the queue fills. The events carry their own ids, so the
 * router sees a gap and asks the worker.
 */
public final class KafkaEventPublisher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KafkaEventPublisher.class);

  /** Records waiting for the sender. */
  public static final int QUEUE_CAPACITY = 100_000;

  /** How long a closing publisher takes to send what it holds. */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

  private record Outgoing(String topic, String key, byte[] value) {}

  private final KafkaProducer<String, byte[]> producer;
  private final FaultLog losses = FaultLog.of(log, "Kafka records lost");
  private final Outbox<Outgoing> outbox;

  private KafkaEventPublisher(KafkaProducer<String, byte[]> producer, String name) {
    this.producer = producer;
    this.outbox = new Outbox<>(name, QUEUE_CAPACITY, this::send, e -> losses.fault(e.toString()));
  }

  /**
   * Starts a producer (it connects when the first record goes out, and keeps trying).
   *
   * @param clientId the client id the brokers see (e.g. the worker's id)
   */
  public static KafkaEventPublisher start(KafkaConfig kafka, String clientId) {
    Properties properties = KafkaClients.properties(kafka, clientId);
    properties.put("acks", "all");
    properties.put("enable.idempotence", "true");
    properties.put("linger.ms", "1");
    // max.block.ms stays Kafka's 60 s: while a restarted broker's partitions get their leader
    // again, the sender waits (records wait in the queue) rather than drop what it holds
    KafkaEventPublisher publisher =
        new KafkaEventPublisher(
            new KafkaProducer<>(properties, new StringSerializer(), new ByteArraySerializer()),
            "kafka-publisher-" + clientId);
    publisher.outbox.start();
    return publisher;
  }

  /** Queues one record; false (and logged) when the queue is full or the publisher closed. */
  public boolean publish(String topic, String key, byte[] value) {
    Outbox.Offered offered =
        outbox.offer(
            new Outgoing(
                Objects.requireNonNull(topic, "topic"),
                Objects.requireNonNull(key, "key"),
                Objects.requireNonNull(value, "value")));
    switch (offered) {
      case FULL -> losses.fault("the queue of " + QUEUE_CAPACITY + " records is full");
      case CLOSED -> losses.fault("the publisher is closed");
      case QUEUED -> {}
    }
    return offered == Outbox.Offered.QUEUED;
  }

  /** On the outbox's thread; a record too large or the producer closing throws. */
  private void send(Outgoing record) {
    producer.send(
        new ProducerRecord<>(record.topic(), record.key(), record.value()),
        (metadata, failure) -> {
          if (failure != null) {
            losses.fault(failure.toString());
          }
        });
  }

  /**
   * Takes no more records, gives the sender and the producer {@link #CLOSE_WAIT} to deliver what
   * they hold, then stops them.
   */
  @Override
  public void close() {
    int unsent = outbox.close(CLOSE_WAIT);
    if (unsent > 0) {
      losses.fault(unsent + " records unsent at close");
    }
    producer.close(CLOSE_WAIT);
  }
}
