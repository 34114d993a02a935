package io.kvrouter.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where the Kafka event plane is ({@code --event-plane kafka}), for routers and workers alike.
 *
 * @param bootstrapServers {@code --kafka-bootstrap-servers}: {@code HOST:PORT[,HOST:PORT...]}
 * @param topicPrefix {@code --kafka-topic-prefix}: the first part of every topic name
 * @param clientConfig {@code --kafka-client-config}: a Java properties file of Kafka client
 *     settings (security among them) given to every producer and consumer; null for none
 */
public record KafkaConfig(String bootstrapServers, String topicPrefix, Path clientConfig) {
  /** Kafka's usual local address, and our topic prefix. */
  public static final KafkaConfig DEFAULTS = new KafkaConfig("localhost:9092", "kvrouter", null);

  public KafkaConfig {
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    Objects.requireNonNull(topicPrefix, "topicPrefix");
  }
}
