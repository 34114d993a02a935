package io.kvrouter.config;

import java.nio.file.Path;
import java.util.Objects;
import java.util.regex.Pattern;

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

  /** What Kafka allows in a topic name: letters, digits, {@code .}, {@code _} and {@code -}. */
  private static final Pattern TOPIC_CHARACTERS = Pattern.compile("[A-Za-z0-9._-]+");

  /** Whether {@code text} holds only characters Kafka allows in topic names (and one at least). */
  public static boolean isTopicText(String text) {
    return TOPIC_CHARACTERS.matcher(text).matches();
  }

  public KafkaConfig {
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    Objects.requireNonNull(topicPrefix, "topicPrefix");
  }
}
