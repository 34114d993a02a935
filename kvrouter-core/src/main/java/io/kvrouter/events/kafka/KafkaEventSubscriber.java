package io.kvrouter.events.kafka;

import io.kvrouter.common.FaultLog;
import io.kvrouter.config.KafkaConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads every partition of some Kafka topics, in order within each partition, on a thread of its
 * own, and hands each record's value to a {@link Listener}.
 *
 * <p>No consumer group: every router reads every partition (manual assignment), commits nothing,
 * and keeps its positions in memory, so a broker restart loses nothing it had not yet read (the
 * client reconnects and goes on from its positions). Where it starts:
 *
 * <ul>
 *   <li>the partitions there are when it starts: at the offsets given (an index snapshot's), else
 *       at their end ({@link Listener#started} then says that everything after is delivered; what
 *       came before is the workers' to tell when asked);
 *   <li>partitions that appear later (a topic created after the start, partitions added): at their
 *       beginning, since everything in them is new.
 * </ul>
 *
 * <p>The topics' partitions are looked up again every {@link #REFRESH} (every 200 ms until the
 * start); a topic that does not exist yet is created by the broker if it creates topics on first
 * use, else waited for.
 */
public final class KafkaEventSubscriber implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KafkaEventSubscriber.class);

  /** How often the topics' partitions are looked up. */
  static final Duration REFRESH = Duration.ofSeconds(5);

  private static final Duration POLL = Duration.ofMillis(100);
  private static final Duration LOOKUP = Duration.ofSeconds(5);

  /** The pause after a failed read before the next. */
  private static final Duration RETRY = Duration.ofSeconds(1);

  /** Told of each record, on the subscriber's thread. */
  public interface Listener {
    /**
     * One record's value, in its partition's order.
     *
     * @param position the record's partition ({@code topic/partition}, as {@link #partitionName}
     *     writes it)
     * @param offset the record's offset in its partition
     */
    void record(String topic, String position, long offset, byte[] value);

    /** Every partition there was at the start is read from its end: nothing after is missed. */
    default void started() {}
  }

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final List<String> topics;
  private final Listener listener;

  /** Where the partitions found at the start begin, when not at their end. */
  private final Map<String, Long> startOffsets;

  private final Thread thread;
  private final CountDownLatch started = new CountDownLatch(1);
  private final Set<TopicPartition> assigned = new HashSet<>();
  private final FaultLog listenerFaults = FaultLog.of(log, "Kafka records the listener failed on");

  /** Brokers unreachable, logins refused, topics not allowed: said at most once a minute. */
  private final FaultLog lookupFaults = FaultLog.of(log, "failed reads of the Kafka topics");

  private volatile boolean closed;

  private KafkaEventSubscriber(
      KafkaConsumer<byte[], byte[]> consumer,
      List<String> topics,
      Map<String, Long> startOffsets,
      Listener listener) {
    this.consumer = consumer;
    this.topics = List.copyOf(topics);
    this.startOffsets = startOffsets;
    this.listener = listener;
    this.thread = new Thread(this::run, "kafka-subscriber-" + String.join(",", topics));
    thread.setDaemon(true);
  }

  /** Starts reading {@code topics} at {@code kafka}; returns at once. */
  public static KafkaEventSubscriber start(
      KafkaConfig kafka, List<String> topics, String clientId, Listener listener) {
    return start(kafka, topics, clientId, Map.of(), listener);
  }

  /**
   * Starts reading {@code topics} at {@code kafka}, the partitions {@code startOffsets} names
   * ({@code topic/partition}) from those offsets (an index snapshot's), the others as usual;
   * returns at once.
   */
  public static KafkaEventSubscriber start(
      KafkaConfig kafka,
      List<String> topics,
      String clientId,
      Map<String, Long> startOffsets,
      Listener listener) {
    Properties properties = KafkaClients.properties(kafka, clientId);
    properties.put("enable.auto.commit", "false");
    properties.put("auto.offset.reset", "earliest");
    KafkaEventSubscriber subscriber =
        new KafkaEventSubscriber(
            new KafkaConsumer<>(
                properties, new ByteArrayDeserializer(), new ByteArrayDeserializer()),
            topics,
            Map.copyOf(startOffsets),
            Objects.requireNonNull(listener, "listener"));
    subscriber.thread.start();
    return subscriber;
  }

  /** Waits until {@link Listener#started}; false when {@code timeout} passed first. */
  public boolean awaitStarted(Duration timeout) throws InterruptedException {
    return started.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  private void run() {
    long nextLookup = 0;
    try {
      while (!closed) {
        try {
          if (System.nanoTime() - nextLookup >= 0) {
            boolean starting = started.getCount() > 0;
            if (lookUpPartitions() && starting) {
              started.countDown();
              listener.started();
            }
            // until it starts, look again soon: a topic asked for is often created by that ask
            nextLookup =
                System.nanoTime()
                    + (started.getCount() > 0 ? POLL.toNanos() * 2 : REFRESH.toNanos());
          }
          if (assigned.isEmpty()) {
            sleep(POLL);
            continue;
          }
          for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL)) {
            deliver(record);
          }
        } catch (WakeupException closing) {
          throw closing;
        } catch (KafkaException e) {
          // a refused login, a lost permission, a broker gone: said once a minute, tried again
          lookupFaults.fault("reading " + topics + ": " + e);
          sleep(RETRY);
        }
      }
    } catch (WakeupException closing) {
      // close() woke the poll
    } catch (RuntimeException e) {
      log.error("the Kafka subscriber of {} stopped", topics, e);
    } finally {
      consumer.close(Duration.ofSeconds(5));
    }
  }

  private void deliver(ConsumerRecord<byte[], byte[]> record) {
    if (record.value() == null) {
      return; // a tombstone: nothing to apply
    }
    try {
      listener.record(
          record.topic(),
          partitionName(record.topic(), record.partition()),
          record.offset(),
          record.value());
    } catch (RuntimeException e) {
      listenerFaults.fault(e.toString());
    }
  }

  /**
   * Assigns the partitions not assigned yet: at their end on the first lookup that finds every
   * topic, at their beginning after. Returns whether every topic has been found.
   */
  private boolean lookUpPartitions() {
    boolean first = started.getCount() > 0;
    List<TopicPartition> found = new ArrayList<>();
    try {
      for (String topic : topics) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, LOOKUP);
        if (infos == null || infos.isEmpty()) {
          // not there yet (every topic's start is taken together)
          lookupFaults.fault(
              "topic "
                  + topic
                  + " does not exist yet (a broker that creates topics on first use makes it"
                  + " now; else create it)");
          return false;
        }
        infos.forEach(info -> found.add(new TopicPartition(info.topic(), info.partition())));
      }
    } catch (WakeupException closing) {
      throw closing;
    } catch (KafkaException e) {
      lookupFaults.fault("the partitions of " + topics + ": " + e);
      return false;
    }
    List<TopicPartition> fresh = found.stream().filter(p -> !assigned.contains(p)).toList();
    if (fresh.isEmpty()) {
      return true;
    }
    Set<TopicPartition> all = new HashSet<>(assigned);
    all.addAll(fresh);
    consumer.assign(all);
    try {
      if (first) {
        List<TopicPartition> atEnd = new ArrayList<>();
        Map<TopicPartition, Long> from = new HashMap<>();
        for (TopicPartition p : fresh) {
          Long offset = startOffsets.get(partitionName(p.topic(), p.partition()));
          if (offset == null) {
            atEnd.add(p);
          } else {
            consumer.seek(p, offset);
            from.put(p, offset);
          }
        }
        consumer.seekToEnd(atEnd);
        Map<TopicPartition, Long> ends = new HashMap<>();
        atEnd.forEach(p -> ends.put(p, consumer.position(p, LOOKUP))); // the end, fixed now
        if (!from.isEmpty()) {
          log.info("Following Kafka partitions {} from an index snapshot's offsets", from);
        }
        log.info("Following Kafka topics {} from their ends {}", topics, ends);
      } else {
        consumer.seekToBeginning(fresh);
        log.info("Following new Kafka partitions {} from their beginnings", fresh);
      }
    } catch (WakeupException closing) {
      throw closing;
    } catch (KafkaException e) {
      // the broker did not say where the ends are: try again at the next lookup
      consumer.assign(assigned);
      lookupFaults.fault("the ends of " + fresh + ": " + e);
      return false;
    }
    assigned.addAll(fresh);
    return true;
  }

  /** How a partition is named in positions and snapshots: {@code topic/partition}. */
  public static String partitionName(String topic, int partition) {
    return topic + "/" + partition;
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the thread and closes the consumer; blocks until both are done. */
  @Override
  public void close() {
    closed = true;
    consumer.wakeup();
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
