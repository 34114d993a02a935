package io.kvrouter.app;

import static io.kvrouter.app.KvConvergence.awaitConverged;
import static io.kvrouter.app.KvConvergence.send;
import static io.kvrouter.app.KvConvergence.workload;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.testing.KafkaBroker;
import io.kvrouter.testing.WorkerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Worker processes publish Dynamo KV events and load reports on a real Kafka broker (KRaft, in this
 * JVM, on loopback); routers follow them with {@code --event-plane kafka}. After each story the
 * router's index holds exactly what every worker's cache holds (compared block by block through a
 * dump of the index and the workers' {@code /kv/state}): a router restarted while events keep
 * coming (through another router), and the broker restarted while requests keep being answered. The
 * topic then holds every event of every rank exactly once, in order.
 */
class KafkaKvEventsIT {
  private static final String MODEL = KvConvergence.MODEL;

  private static WorkerProcess worker(KafkaBroker kafka, String id, String... more)
      throws Exception {
    List<String> options =
        new ArrayList<>(
            List.of(
                "--port",
                "0",
                "--event-plane",
                "kafka",
                "--kafka-bootstrap-servers",
                kafka.bootstrapServers(),
                "--worker-id",
                id,
                "--block-size",
                String.valueOf(KvConvergence.BLOCK_SIZE),
                "--num-gpu-blocks",
                String.valueOf(KvConvergence.KV_BLOCKS)));
    options.addAll(List.of(more));
    return WorkerProcess.start(MODEL, 0, 0, options);
  }

  private static Map<String, List<String>> routerFlags(
      KafkaBroker kafka, List<WorkerProcess> workers, String... more) {
    Map<String, List<String>> flags = KvConvergence.kvFlags();
    flags.put("event-plane", List.of("kafka"));
    flags.put("kafka-bootstrap-servers", List.of(kafka.bootstrapServers()));
    List<String> specs = new ArrayList<>();
    for (WorkerProcess worker : workers) {
      specs.add(worker.workerSpec(String.valueOf(31 + specs.size())));
    }
    flags.put("worker", specs);
    for (int i = 0; i < more.length; i += 2) {
      flags.put(more[i], List.of(more[i + 1]));
    }
    return flags;
  }

  @Test
  void routerRestartedMidStream_andBrokerRestarted_indexEqualsTheWorkersCaches() throws Exception {
    try (KafkaBroker kafka = KafkaBroker.start()) {
      WorkerProcess w31 = worker(kafka, "31");
      WorkerProcess w32 = worker(kafka, "32");
      Map<String, WorkerProcess> workers = Map.of("31", w31, "32", w32);
      Random random = new Random(5);
      Map<String, List<String>> flags = routerFlags(kafka, List.of(w31, w32));
      RouterFixture a = null;
      try (RouterFixture b = RouterFixture.start(flags)) {
        a = RouterFixture.start(flags);

        // the events, and evictions among them, reach both routers
        send(a, workload(random, 60));
        awaitConverged(a, workers);
        awaitConverged(b, workers);
        KvConvergence.awaitFollowingWithReportedLoad(a);

        // a router goes away while events keep coming through the other, and comes back
        Traffic traffic = Traffic.start(b, workload(random, 1000));
        traffic.awaitMore(10);
        a.close();
        a = null;
        traffic.awaitMore(30);
        a = RouterFixture.start(flags);
        traffic.awaitMore(30);
        traffic.stop();
        awaitConverged(a, workers);
        awaitConverged(b, workers);

        // the broker goes away and comes back while requests keep being answered: the workers'
        // producers hold their records and the routers' consumers go on from where they were
        traffic = Traffic.start(b, workload(random, 1000));
        traffic.awaitMore(10);
        kafka.stopBroker();
        traffic.awaitMore(20);
        kafka.startBroker();
        traffic.awaitMore(40);
        traffic.stop();
        awaitConverged(b, workers);
        awaitConverged(a, workers);

        // the topic holds every event of every rank once, in order, through the broker's restart
        Map<WorkerRank, List<Long>> ids = eventIdsOnTheTopic(kafka);
        assertThat(ids.keySet())
            .containsExactlyInAnyOrder(new WorkerRank("31", 0), new WorkerRank("32", 0));
        ids.forEach(
            (rank, seen) ->
                assertThat(seen)
                    .as(rank + ": ids 0, 1, 2, … without a hole or a repeat")
                    .isEqualTo(LongStream.range(0, seen.size()).boxed().toList()));
      } finally {
        if (a != null) {
          a.close();
        }
        w31.close();
        w32.close();
      }
    }
  }

  @Test
  void aBrokerThatWantsALogin_isReachedWithTheClientConfigsCredentials(@TempDir Path dir)
      throws Exception {
    try (KafkaBroker kafka = KafkaBroker.startWithSasl()) {
      Path login = dir.resolve("client.properties");
      Files.writeString(
          login, KafkaBroker.saslClientConfig(KafkaBroker.SASL_USER, KafkaBroker.SASL_PASSWORD));
      Path wrong = dir.resolve("wrong.properties");
      Files.writeString(wrong, KafkaBroker.saslClientConfig(KafkaBroker.SASL_USER, "not-it"));
      WorkerProcess w31 = worker(kafka, "31", "--kafka-client-config", login.toString());
      try (RouterFixture router =
              RouterFixture.start(
                  routerFlags(kafka, List.of(w31), "kafka-client-config", login.toString()));
          RouterFixture refused =
              RouterFixture.start(
                  routerFlags(kafka, List.of(w31), "kafka-client-config", wrong.toString()))) {
        send(router, workload(new Random(6), 30));
        awaitConverged(router, Map.of("31", w31));
        assertThat(KvConvergence.routerBlocksByRank(refused))
            .as("a router the broker refused heard no event")
            .isEmpty();
      } finally {
        w31.close();
      }
    }
  }

  /** Every event id on the KV event topic, per rank, in the order of its partition. */
  private static Map<WorkerRank, List<Long>> eventIdsOnTheTopic(KafkaBroker kafka) {
    String topic = "kvrouter.dynamo.backend.generate.kv-events";
    Map<WorkerRank, List<Long>> ids = new HashMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(
            Map.of("bootstrap.servers", kafka.bootstrapServers()),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
              .map(info -> new TopicPartition(topic, info.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(30));
      Awaitility.await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                for (ConsumerRecord<byte[], byte[]> record :
                    consumer.poll(Duration.ofMillis(200))) {
                  for (DynamoRouterEvent event : DynamoMsgpackCodec.decodePayload(record.value())) {
                    ids.computeIfAbsent(event.event().worker(), r -> new ArrayList<>())
                        .add(event.eventId());
                  }
                }
                return partitions.stream().allMatch(p -> consumer.position(p) >= ends.get(p));
              });
    }
    return ids;
  }
}
