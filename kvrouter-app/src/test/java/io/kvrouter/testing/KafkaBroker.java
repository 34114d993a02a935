package io.kvrouter.testing;

import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.test.JaasUtils;
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

  /** A user the broker of {@link #startWithSasl} knows (SASL PLAIN). */
  public static final String SASL_USER = JaasUtils.KAFKA_PLAIN_USER1;

  /** {@link #SASL_USER}'s password. */
  public static final String SASL_PASSWORD = JaasUtils.KAFKA_PLAIN_USER1_PASSWORD;

  /** Formats the node's log folders and starts it; returns once the broker takes clients. */
  public static KafkaBroker start() throws Exception {
    return start(SecurityProtocol.PLAINTEXT);
  }

  /**
   * A broker whose clients must log in with SASL PLAIN ({@code SASL_PLAINTEXT}), as {@link
   * #SASL_USER} for one.
   */
  public static KafkaBroker startWithSasl() throws Exception {
    return start(SecurityProtocol.SASL_PLAINTEXT);
  }

  /**
   * The client settings that log in to a {@link #startWithSasl} broker as {@code user}, as a
   * properties file's text.
   */
  public static String saslClientConfig(String user, String password) {
    return "security.protocol=SASL_PLAINTEXT\n"
        + "sasl.mechanism=PLAIN\n"
        + "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required"
        + " username=\""
        + user
        + "\" password=\""
        + password
        + "\";\n";
  }

  private static KafkaBroker start(SecurityProtocol protocol) throws Exception {
    KafkaClusterTestKit cluster =
        new KafkaClusterTestKit.Builder(
                new TestKitNodes.Builder()
                    .setCombined(true)
                    .setNumBrokerNodes(1)
                    .setNumControllerNodes(1)
                    .setBrokerSecurityProtocol(protocol)
                    .build())
            // one node: the internal topics cannot have the default three replicas
            .setConfigProp("offsets.topic.replication.factor", "1")
            .setConfigProp("transaction.state.log.replication.factor", "1")
            .setConfigProp("transaction.state.log.min.isr", "1")
            .setConfigProp("group.initial.rebalance.delay.ms", "0")
            // with SASL the kit turns authorization on, which its own controller connections
            // (PLAINTEXT, anonymous) fail; logging in is what is tested here, not permissions
            .setConfigProp("authorizer.class.name", "")
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
