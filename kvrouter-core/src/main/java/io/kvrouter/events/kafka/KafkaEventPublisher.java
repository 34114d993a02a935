package io.kvrouter.events.kafka;

import io.kvrouter.common.FaultLog;
import io.kvrouter.config.KafkaConfig;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
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
 * <p>What is lost, and counted: a record that finds the queue ({@link #QUEUE_CAPACITY}) full, and
 * one the producer gives up on (no broker for {@code delivery.timeout.ms}, two minutes by default).
 * The events carry their own ids, so the router sees the gap and asks the worker.
 */
public final class KafkaEventPublisher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KafkaEventPublisher.class);

  /** Records waiting for the sender. */
  public static final int QUEUE_CAPACITY = 100_000;

  private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

  /**
   * @param published records the producer acknowledged
   * @param dropped records lost: the queue was full, or the producer gave up on them
   */
  public record Stats(long published, long dropped) {}

  private record Outgoing(String topic, String key, byte[] value) {}

  private final KafkaProducer<String, byte[]> producer;
  private final BlockingQueue<Outgoing> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
  private final Thread sender;
  private final AtomicLong published = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
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
    if (closed || !queue.offer(record)) {
      dropped.incrementAndGet();
      losses.fault("the queue of " + QUEUE_CAPACITY + " records is full");
      return false;
    }
    return true;
  }

  public Stats stats() {
    return new Stats(published.get(), dropped.get());
  }

  private void send() {
    while (!closed) {
      Outgoing record;
      try {
        record = queue.take();
      } catch (InterruptedException e) {
        return; // closing
      }
      try {
        producer.send(
            new ProducerRecord<>(record.topic(), record.key(), record.value()),
            (metadata, failure) -> {
              if (failure == null) {
                published.incrementAndGet();
              } else {
                dropped.incrementAndGet();
                losses.fault(failure.toString());
              }
            });
      } catch (RuntimeException e) {
        // a record too large, or the producer closing
        dropped.incrementAndGet();
        losses.fault(e.toString());
      }
    }
  }

  /** Stops the sender, then gives the producer a few seconds to deliver what it holds. */
  @Override
  public void close() {
    closed = true;
    sender.interrupt();
    try {
      sender.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    producer.close(CLOSE_WAIT);
  }
}
