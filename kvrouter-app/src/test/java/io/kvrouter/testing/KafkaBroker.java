package io.kvrouter.testing;

import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * A real single-node Kafka (KRaft, broker and controller in one node) in this JVM, on loopback, for
 * tests of the Kafka event plane; stopped by {@link #close}.
 */
public final class KafkaBroker implements AutoCloseable {
  private final KafkaClusterTestKit cluster;

  private KafkaBroker(KafkaClusterTestKit cluster) {
    this.cluster = cluster;
  }

  /** Formats the node's log folders and starts it; returns once the broker takes clients. */
  public static KafkaBroker start() throws Exception {
    KafkaClusterTestKit cluster =
        new KafkaClusterTestKit.Builder(
                new TestKitNodes.Builder()
                    .setCombined(true)
                    .setNumBrokerNodes(1)
                    .setNumControllerNodes(1)
                    .build())
            // one node: the internal topics cannot have the default three replicas
            .setConfigProp("offsets.topic.replication.factor", "1")
            .setConfigProp("transaction.state.log.replication.factor", "1")
            .setConfigProp("transaction.state.log.min.isr", "1")
            .setConfigProp("group.initial.rebalance.delay.ms", "0")
            .build();
    try {
      cluster.format();
      cluster.startup();
      cluster.waitForReadyBrokers();
    } catch (Exception e) {
      cluster.close();
      throw e;
    }
    return new KafkaBroker(cluster);
  }

  /** {@code HOST:PORT} of the broker, for {@code bootstrap.servers}. */
  public String bootstrapServers() {
    return cluster.bootstrapServers();
  }

  /** Creates {@code topic} with {@code partitions} partitions, and waits until it exists. */
  public void createTopic(String topic, int partitions) throws Exception {
    try (var admin = cluster.admin()) {
      admin
          .createTopics(
              java.util.List.of(
                  new org.apache.kafka.clients.admin.NewTopic(topic, partitions, (short) 1)))
          .all()
          .get();
    }
  }

  /** Stops the broker, the node's controller staying up: clients lose their connections. */
  public void stopBroker() {
    cluster.brokers().values().forEach(broker -> broker.shutdown());
  }

  /** Starts the broker again, on its port, with the records it had kept. */
  public void startBroker() throws Exception {
    for (var broker : cluster.brokers().values()) {
      broker.startup();
    }
    cluster.waitForReadyBrokers();
  }

  @Override
  public void close() throws Exception {
    cluster.close();
  }
}
