package io.kvrouter.events.kafka;

import io.kvrouter.config.KafkaConfig;
import java.util.Objects;

/**
 * The topics of the Kafka event plane. An endpoint's workers publish on two topics of their own,
 * named like Dynamo's NATS subjects with {@code .} between the parts:
 *
 * <ul>
 *   <li>{@code {prefix}.{namespace}.{component}.{endpoint}.kv-events}: msgpack {@code RouterEvent}
 *       batches;
 *   <li>{@code {prefix}.{namespace}.{component}.{endpoint}.kv-metrics}: msgpack {@code ActiveLoad}
 *       reports.
 * </ul>
 *
 * <p>The index snapshots of every endpoint share one compacted topic ({@link #indexSnapshots}).
 *
 * <p>Each record's key is the worker's id (its decimal Dynamo id), so every event of a worker, all
 * its data-parallel ranks included, lands in one partition, in order.
 */
public final class KafkaTopics {
  /** Kafka's longest topic name. */
  private static final int MAX_LENGTH = 249;

  private KafkaTopics() {}

  /** The KV event topic of an endpoint's workers. */
  public static String kvEvents(KafkaConfig kafka, String namespace, String component, String ep) {
    return topic(kafka, namespace, component, ep, "kv-events");
  }

  /** The load report topic of an endpoint's workers. */
  public static String kvMetrics(KafkaConfig kafka, String namespace, String component, String ep) {
    return topic(kafka, namespace, component, ep, "kv-metrics");
  }

  /**
   * The compacted topic of the fleet's index snapshots ({@code {prefix}.index-snapshots}), shared
   * by every endpoint: each snapshot's records are keyed by its name.
   */
  public static String indexSnapshots(KafkaConfig kafka) {
    return kafka.topicPrefix() + ".index-snapshots";
  }

  private static String topic(
      KafkaConfig kafka, String namespace, String component, String endpoint, String suffix) {
    String name =
        String.join(
            ".",
            kafka.topicPrefix(),
            Objects.requireNonNull(namespace, "namespace"),
            Objects.requireNonNull(component, "component"),
            Objects.requireNonNull(endpoint, "endpoint"),
            suffix);
    if (!KafkaConfig.isTopicText(name) || name.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          "Kafka topic '"
              + name
              + "' is not a legal topic name (at most "
              + MAX_LENGTH
              + " letters, digits, '.', '_' and '-'): choose a namespace, component and endpoint"
              + " of those characters");
    }
    return name;
  }
}
