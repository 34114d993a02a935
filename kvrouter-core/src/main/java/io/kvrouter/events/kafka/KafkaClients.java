package io.kvrouter.events.kafka;

import io.kvrouter.config.KafkaConfig;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Properties;

/** The client settings every producer and consumer of the Kafka event plane starts from. */
final class KafkaClients {
  private KafkaClients() {}

  /**
   * {@code --kafka-client-config}'s properties (security settings, typically) with {@code
   * bootstrap.servers} and {@code client.id} set.
   *
   * @throws UncheckedIOException when the file cannot be read
   */
  static Properties properties(KafkaConfig kafka, String clientId) {
    Properties properties = new Properties();
    if (kafka.clientConfig() != null) {
      try (Reader in = Files.newBufferedReader(kafka.clientConfig())) {
        properties.load(in);
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot read --kafka-client-config " + kafka.clientConfig() + ": " + e.getMessage(), e);
      }
    }
    properties.put("bootstrap.servers", kafka.bootstrapServers());
    properties.put("client.id", clientId);
    return properties;
  }
}
