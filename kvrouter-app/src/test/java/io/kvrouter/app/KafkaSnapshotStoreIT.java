package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.KafkaConfig;
import io.kvrouter.events.kafka.KafkaSnapshotStore;
import io.kvrouter.events.kafka.KafkaTopics;
import io.kvrouter.protocol.snapshot.IndexSnapshot;
import io.kvrouter.testing.KafkaBroker;
import io.kvrouter.testing.SyntheticSnapshots;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Snapshots in a real Kafka broker's compacted topic (KRaft, in this JVM, on loopback): written in
 * chunks, read back by another client, replaced, deleted; a writer that dies half-way leaves the
 * previous snapshot whole; and the writers' group gives the lock to one router at a time, and to
 * another once the holder leaves.
 */
class KafkaSnapshotStoreIT {
  private static final String NAME = "dynamo.backend.generate/model";

  @Test
  void aSnapshotIsWrittenInChunks_readByAnother_replaced_andDeleted() throws Exception {
    try (KafkaBroker kafka = KafkaBroker.start()) {
      KafkaConfig config = new KafkaConfig(kafka.bootstrapServers(), "kvrouter", null);
      try (KafkaSnapshotStore writer = KafkaSnapshotStore.connect(config, Duration.ofSeconds(30));
          KafkaSnapshotStore reader = KafkaSnapshotStore.connect(config, Duration.ofSeconds(30))) {
        assertThat(reader.load(NAME)).isEmpty();

        IndexSnapshot first = SyntheticSnapshots.of(60_000, 99);
        assertThat(writer.save(NAME, first)).as("several chunks").isGreaterThan(3L * 512 * 1024);
        assertThat(reader.load(NAME)).contains(first);
        assertThat(reader.load("other.endpoint.name/model")).isEmpty();

        // a writer that dies after some chunks of a new snapshot, before its head
        try (KafkaProducer<byte[], byte[]> dying =
            new KafkaProducer<>(
                producerProperties(kafka), new ByteArraySerializer(), new ByteArraySerializer())) {
          dying
              .send(
                  new ProducerRecord<>(
                      KafkaTopics.indexSnapshots(config),
                      0,
                      (NAME + "/chunk/12345/0").getBytes(StandardCharsets.UTF_8),
                      new byte[] {1, 2, 3}))
              .get();
        }
        assertThat(reader.load(NAME)).as("the previous snapshot stays whole").contains(first);

        IndexSnapshot second = SyntheticSnapshots.of(10, 120);
        writer.save(NAME, second);
        assertThat(reader.load(NAME)).contains(second);

        reader.delete(NAME);
        assertThat(writer.load(NAME)).isEmpty();
        reader.delete(NAME); // nothing there: no error
      }
    }
  }

  private static Properties producerProperties(KafkaBroker kafka) {
    Properties properties = new Properties();
    properties.put("bootstrap.servers", kafka.bootstrapServers());
    return properties;
  }

  @Test
  void oneWriterAtATime_keptWhenAnotherJoins_andPassedOnWhenTheHolderLeaves() throws Exception {
    try (KafkaBroker kafka = KafkaBroker.start()) {
      KafkaConfig config = new KafkaConfig(kafka.bootstrapServers(), "kvrouter", null);
      try (KafkaSnapshotStore joiner = KafkaSnapshotStore.connect(config, Duration.ofSeconds(10))) {
        KafkaSnapshotStore holder = KafkaSnapshotStore.connect(config, Duration.ofSeconds(10));
        try {
          // joining the group takes a few polls
          Awaitility.await()
              .atMost(Duration.ofSeconds(60))
              .until(() -> holder.lock(NAME, "router-z"));
          // another joins, with a member id before the holder's: the group settles with one
          // holder, polled as routers poll, and the sticky assignor leaves it where it was
          Awaitility.await()
              .atMost(Duration.ofSeconds(60))
              .until(() -> holder.lock(NAME, "router-z") ^ joiner.lock(NAME, "router-a"));
          assertThat(holder.lock(NAME, "router-z")).as("the holder keeps it").isTrue();
          assertThat(joiner.lock(NAME, "router-a")).as("the joiner waits").isFalse();
        } finally {
          holder.close(); // leaves the group
        }
        Awaitility.await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> joiner.lock(NAME, "router-a"));
      }
    }
  }
}
