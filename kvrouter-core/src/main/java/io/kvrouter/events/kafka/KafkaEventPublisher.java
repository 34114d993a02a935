package io.kvrouter.events.kafka;

import io.kvrouter.common.FaultLog;
import io.kvrouter.config.KafkaConfig;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
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
  private final BlockingQueue<Outgoing> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
  private final Thread sender;
  private final FaultLog losses = FaultLog.of(log, "Kafka records lost");
  private volatile boolean closed;

  private KafkaEventPublisher(KafkaProducer<String, byte[]> producer, String name) {
    this.producer = producer;
    this.sender = new Thread(this::send, name);
    sender.setDaemon(true);
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
    publisher.sender.start();
    return publisher;
  }

  /** Queues one record; false (and counted) when the queue is full or the publisher closed. */
  public boolean publish(String topic, String key, byte[] value) {
    Outgoing record =
        new Outgoing(
            Objects.requireNonNull(topic, "topic"),
            Objects.requireNonNull(key, "key"),
            Objects.requireNonNull(value, "value"));
    if (closed) {
      losses.fault("the publisher is closed");
      return false;
    }
    if (!queue.offer(record)) {
      losses.fault("the queue of " + QUEUE_CAPACITY + " records is full");
      return false;
    }
    return true;
  }

  /** The sender thread: until closed and the queue is empty. */
  private void send() {
    while (!closed || !queue.isEmpty()) {
      Outgoing record;
      try {
        record = queue.poll(100, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        return; // closing and out of time
      }
      if (record == null) {
        continue;
      }
      try {
        producer.send(
            new ProducerRecord<>(record.topic(), record.key(), record.value()),
            (metadata, failure) -> {
              if (failure != null) {
                losses.fault(failure.toString());
              }
            });
      } catch (RuntimeException e) {
        // a record too large, no metadata within max.block.ms, or the producer closing
        losses.fault(e.toString());
      }
    }
  }

  /**
   * Takes no more records, gives the sender and the producer {@link #CLOSE_WAIT} to deliver what
   * they hold, then stops them.
   */
  @Override
  public void close() {
    closed = true;
    try {
      sender.join(CLOSE_WAIT.toMillis());
      sender.interrupt();
      sender.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    producer.close(CLOSE_WAIT);
  }
}
