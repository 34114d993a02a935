package io.kvrouter.app;

import io.kvrouter.config.EventPlaneConfig;
import io.kvrouter.events.kafka.KafkaEventSubscriber;
import io.kvrouter.events.kafka.KafkaTopics;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec;
import io.kvrouter.protocol.snapshot.IndexSnapshot;
import io.kvrouter.routing.Router;
import io.kvrouter.transport.RequestPlane;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's side of the Kafka event plane ({@code --event-plane kafka}): the workers' msgpack
 * {@code RouterEvent} batches on the endpoint's {@code kv-events} topic feed a {@link
 * io.kvrouter.events.DynamoEventFollower}, their msgpack {@code ActiveLoad} reports on {@code
 * kv-metrics} reach the router ({@link KafkaTopics}). One subscriber reads every partition of both.
 *
 * <p>Kafka keeps each worker's records in order and a broker restart loses none, so after the start
 * the follower sees no gap unless a worker's producer gave up on a record (it then asks the worker,
 * as on the other planes). At its start the router reads from the topics' ends and asks each worker
 * for its state ({@link SharedFeed}).
 */
final class KafkaKvEvents {
  private static final Logger log = LoggerFactory.getLogger(KafkaKvEvents.class);

  /** The longest the router's start waits for the topics' ends. */
  static final Duration START_WAIT = Duration.ofSeconds(10);

  private KafkaKvEvents() {}

  /**
   * Subscribes; the workers are followed as they join. With a {@code snapshot}, the index starts
   * from it and each partition it holds an offset for is read from there, so the events published
   * since are applied from the log. Blocks up to {@link #START_WAIT}.
   */
  static SharedFeed start(
      EventPlaneConfig config,
      Router router,
      RequestPlane plane,
      DiscoveredPublishers publishers,
      Optional<IndexSnapshot> snapshot,
      MeterRegistry meters) {
    // a record is delivered once, but a worker's answer to a query may repeat what follows it
    SharedFeed feed = SharedFeed.create(router, plane, true, publishers, snapshot, meters);
    try {
      String events =
          KafkaTopics.kvEvents(
              config.kafka(), config.namespace(), config.component(), config.endpoint());
      String loads =
          KafkaTopics.kvMetrics(
              config.kafka(), config.namespace(), config.component(), config.endpoint());
      Consumer<byte[]> loadReports =
          DynamoFollowing.loadReports(
              router, meters, "dynamo-kafka-load", DynamoMsgpackCodec::decodeLoad);
      KafkaEventSubscriber subscriber =
          KafkaEventSubscriber.start(
              config.kafka(),
              List.of(events, loads),
              // one client id per subscriber in a process: Kafka registers each by its id
              "kvrouter-router-" + events,
              snapshot.map(IndexSnapshot::offsets).orElse(Map.of()),
              new KafkaEventSubscriber.Listener() {
                @Override
                public void record(String topic, String position, long offset, byte[] value) {
                  if (topic.equals(events)) {
                    feed.follower.onMsgpack(value, position, offset + 1);
                  } else {
                    loadReports.accept(value);
                  }
                }

                @Override
                public void started() {
                  feed.up();
                }
              });
      feed.attach(subscriber);
      awaitStarted(config, subscriber, events, loads);
      return feed;
    } catch (RuntimeException e) {
      feed.close();
      throw e;
    }
  }

  /**
   * Waits until the subscriber knows the topics' ends, so that a router reporting ready misses no
   * event published after; past the wait it starts anyway and follows once Kafka answers. Called
   * off the event loops.
   */
  private static void awaitStarted(
      EventPlaneConfig config, KafkaEventSubscriber subscriber, String events, String loads) {
    try {
      if (!subscriber.awaitStarted(START_WAIT)) {
        log.warn(
            "Kafka at {} has not shown the topics {} and {} yet (it may be unreachable, refuse"
                + " the login, or not create topics on first use): the router starts, and follows"
                + " the KV events once they are there",
            config.kafka().bootstrapServers(),
            events,
            loads);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
