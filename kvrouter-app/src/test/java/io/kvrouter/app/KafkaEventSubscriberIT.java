package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.KafkaConfig;
import io.kvrouter.events.kafka.KafkaEventSubscriber;
import io.kvrouter.testing.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Where the router's Kafka subscriber starts, on a real broker (KRaft, in this JVM, on loopback): a
 * partition an index snapshot names at the snapshot's offset (the records since are read again),
 * another at its end; every record comes with its partition and offset.
 */
class KafkaEventSubscriberIT {
  private static final String TOPIC = "kvrouter.dynamo.backend.generate.kv-events";

  @Test
  void aPartitionTheSnapshotNames_startsAtItsOffset_theOthersAtTheirEnd() throws Exception {
    try (KafkaBroker kafka = KafkaBroker.start()) {
      kafka.createTopic(TOPIC, 2);
      Properties properties = new Properties();
      properties.put("bootstrap.servers", kafka.bootstrapServers());
      try (KafkaProducer<byte[], byte[]> producer =
          new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer())) {
        for (int i = 0; i < 6; i++) {
          send(producer, 0, "before-0-" + i);
          send(producer, 1, "before-1-" + i);
        }
        List<String> heard = new CopyOnWriteArrayList<>();
        try (KafkaEventSubscriber subscriber =
            KafkaEventSubscriber.start(
                new KafkaConfig(kafka.bootstrapServers(), "kvrouter", null),
                List.of(TOPIC),
                "subscriber-it",
                Map.of(TOPIC + "/0", 4L),
                (topic, position, offset, value) ->
                    heard.add(
                        position
                            + "@"
                            + offset
                            + " "
                            + new String(value, StandardCharsets.UTF_8)))) {
          assertThat(subscriber.awaitStarted(Duration.ofSeconds(60))).isTrue();
          send(producer, 0, "after-0");
          send(producer, 1, "after-1");
          Awaitility.await()
              .atMost(Duration.ofSeconds(60))
              .untilAsserted(
                  () ->
                      assertThat(heard)
                          .containsExactlyInAnyOrder(
                              TOPIC + "/0@4 before-0-4",
                              TOPIC + "/0@5 before-0-5",
                              TOPIC + "/0@6 after-0",
                              TOPIC + "/1@6 after-1"));
        }
      }
    }
  }

  private static void send(KafkaProducer<byte[], byte[]> producer, int partition, String value)
      throws Exception {
    producer
        .send(new ProducerRecord<>(TOPIC, partition, null, value.getBytes(StandardCharsets.UTF_8)))
        .get();
  }
}
