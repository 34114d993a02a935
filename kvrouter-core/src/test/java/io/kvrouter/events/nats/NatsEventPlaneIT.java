package io.kvrouter.events.nats;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.common.Ticker;
import io.kvrouter.testing.NatsServerProcess;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A publisher and a subscriber through a real {@code nats-server} on loopback, started and stopped
 * by each test: payloads arrive whole and in order, both sides ride out a server restart, and a
 * JetStream durable consumer gets what was published while its router was away.
 */
class NatsEventPlaneIT {
  private static final String SUBJECT = NatsSubjects.kvEvents("test", "backend");
  private static final Duration WAIT = Duration.ofSeconds(20);

  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    // clients first, servers last
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  /** What a listener saw: payloads as strings, and "+" / "-" for connected / disconnected. */
  private static final class Recorder implements NatsEventSubscriber.Listener {
    final List<String> seen = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void message(byte[] payload) {
      seen.add(new String(payload, StandardCharsets.UTF_8));
    }

    @Override
    public void connected(boolean reconnect) {
      seen.add(reconnect ? "+again" : "+");
    }

    @Override
    public void disconnected() {
      seen.add("-");
    }

    List<String> payloads() {
      synchronized (seen) {
        return seen.stream().filter(s -> !s.startsWith("+") && !s.equals("-")).toList();
      }
    }

    List<String> events() {
      synchronized (seen) {
        return seen.stream().filter(s -> s.startsWith("+") || s.equals("-")).toList();
      }
    }
  }

  private NatsServerProcess server(boolean jetStream) throws Exception {
    NatsServerProcess server =
        jetStream ? NatsServerProcess.startWithJetStream() : NatsServerProcess.start();
    closing.add(server);
    return server;
  }

  private NatsEventPublisher publisher(NatsServerProcess server) {
    NatsEventPublisher publisher = NatsEventPublisher.start(server.server());
    closing.add(0, publisher);
    Awaitility.await().atMost(WAIT).until(() -> publisher.stats().connected());
    return publisher;
  }

  private NatsEventSubscriber subscriber(NatsEventSubscriber.Options options, Recorder recorder) {
    NatsEventSubscriber subscriber = NatsEventSubscriber.start(options, recorder, Ticker.SYSTEM);
    closing.add(0, subscriber);
    Awaitility.await().atMost(WAIT).until(subscriber::isSubscribed);
    return subscriber;
  }

  private static List<String> range(String prefix, int from, int to) {
    return IntStream.range(from, to).mapToObj(i -> prefix + i).toList();
  }

  private static void publishAll(NatsEventPublisher publisher, List<String> payloads) {
    for (String p : payloads) {
      assertThat(publisher.publish(SUBJECT, p.getBytes(StandardCharsets.UTF_8))).isTrue();
    }
    assertThat(publisher.flush(WAIT)).isTrue();
  }

  private static void awaitPayloads(Recorder recorder, int count) {
    Awaitility.await().atMost(WAIT).until(() -> recorder.payloads().size() >= count);
  }

  @Test
  void everyPayloadArrives_wholeAndInOrder() throws Exception {
    NatsServerProcess server = server(false);
    Recorder recorder = new Recorder();
    NatsEventSubscriber subscriber =
        subscriber(NatsEventSubscriber.Options.core(server.server(), SUBJECT), recorder);
    NatsEventPublisher publisher = publisher(server);

    List<String> sent = range("event-", 0, 500);
    publishAll(publisher, sent);
    awaitPayloads(recorder, 500);

    assertThat(recorder.payloads()).containsExactlyElementsOf(sent);
    assertThat(recorder.events()).containsExactly("+");
    assertThat(subscriber.stats().messages()).isEqualTo(500);
    assertThat(subscriber.stats().state()).isEqualTo("following");
    assertThat(publisher.stats().published()).isEqualTo(500);
    assertThat(publisher.stats().dropped()).isZero();
  }

  @Test
  void aPayloadAboveTheLimit_isDroppedAndCounted_andTheNextOneArrives() throws Exception {
    NatsServerProcess server = server(false);
    Recorder recorder = new Recorder();
    NatsEventSubscriber subscriber =
        subscriber(
            NatsEventSubscriber.Options.core(server.server(), SUBJECT).withMaxMessageBytes(1024),
            recorder);
    NatsEventPublisher publisher = publisher(server);

    publishAll(publisher, List.of("small-0", "x".repeat(1025), "small-1"));
    awaitPayloads(recorder, 2);

    assertThat(recorder.payloads()).containsExactly("small-0", "small-1");
    assertThat(subscriber.stats().oversized()).isEqualTo(1);
    assertThat(subscriber.stats().messages()).isEqualTo(2);
  }

  @Test
  void aServerRestart_isReportedAndBothSidesCarryOn() throws Exception {
    NatsServerProcess server = server(false);
    Recorder recorder = new Recorder();
    NatsEventSubscriber subscriber =
        subscriber(NatsEventSubscriber.Options.core(server.server(), SUBJECT), recorder);
    NatsEventPublisher publisher = publisher(server);
    publishAll(publisher, range("before-", 0, 100));
    awaitPayloads(recorder, 100);

    server.stop();
    Awaitility.await()
        .atMost(WAIT)
        .until(() -> subscriber.stats().disconnects() == 1 && publisher.stats().disconnects() == 1);
    assertThat(subscriber.stats().state()).isEqualTo("disconnected");
    // core NATS: what is published now is buffered by the publisher, but may reach the server
    // before the subscriber is back, so it is not asserted either way
    publisher.publish(SUBJECT, "while-down".getBytes(StandardCharsets.UTF_8));

    server.restart();
    Awaitility.await()
        .atMost(WAIT)
        .until(() -> subscriber.stats().reconnects() == 1 && publisher.stats().reconnects() == 1);
    List<String> after = range("after-", 0, 100);
    publishAll(publisher, after);
    Awaitility.await().atMost(WAIT).until(() -> recorder.payloads().containsAll(after));

    assertThat(recorder.events()).containsExactly("+", "-", "+again");
    List<String> payloads = recorder.payloads();
    assertThat(payloads.subList(0, 100)).containsExactlyElementsOf(range("before-", 0, 100));
    assertThat(payloads.subList(payloads.size() - 100, payloads.size()))
        .containsExactlyElementsOf(after);
    assertThat(subscriber.stats().state()).isEqualTo("following");
  }

  @Test
  void aSubscriberStartedBeforeTheServer_connectsWhenItComesUp() throws Exception {
    NatsServerProcess server = server(false);
    server.stop();
    Recorder recorder = new Recorder();
    NatsEventSubscriber subscriber =
        NatsEventSubscriber.start(
            NatsEventSubscriber.Options.core(server.server(), SUBJECT), recorder, Ticker.SYSTEM);
    closing.add(0, subscriber);
    assertThat(subscriber.stats().state()).isEqualTo("connecting");

    server.restart();
    Awaitility.await().atMost(WAIT).until(subscriber::isSubscribed);
    NatsEventPublisher publisher = publisher(server);
    publishAll(publisher, range("e", 0, 10));
    awaitPayloads(recorder, 10);

    assertThat(recorder.payloads()).containsExactlyElementsOf(range("e", 0, 10));
    assertThat(recorder.events()).containsExactly("+");
  }

  @Test
  void awaitSubscribed_waitsForTheServerToHoldTheSubscription() throws Exception {
    NatsServerProcess server = server(false);
    server.stop();
    Recorder recorder = new Recorder();
    NatsEventSubscriber subscriber =
        NatsEventSubscriber.start(
            NatsEventSubscriber.Options.core(server.server(), SUBJECT), recorder, Ticker.SYSTEM);
    closing.add(0, subscriber);
    assertThat(subscriber.awaitSubscribed(Duration.ofMillis(200)))
        .as("no server: the wait runs out")
        .isFalse();

    server.restart();
    NatsEventPublisher publisher = publisher(server);
    assertThat(subscriber.awaitSubscribed(WAIT)).isTrue();
    // published the moment the wait returns, from another connection: heard all the same
    publishAll(publisher, range("first-", 0, 3));
    awaitPayloads(recorder, 3);
    assertThat(recorder.payloads()).containsExactlyElementsOf(range("first-", 0, 3));
  }

  @Test
  void aPublisherWithoutConnection_dropsAndCounts() throws Exception {
    NatsServerProcess server = server(false);
    server.stop();
    NatsEventPublisher publisher = NatsEventPublisher.start(server.server());
    closing.add(0, publisher);

    assertThat(publisher.publish(SUBJECT, new byte[] {1})).isFalse();
    assertThat(publisher.stats().dropped()).isEqualTo(1);
    assertThat(publisher.stats().connected()).isFalse();
  }

  @Test
  void aDurableConsumer_getsWhatWasPublishedWhileItsRouterWasAway() throws Exception {
    NatsServerProcess server = server(true);
    NatsEventSubscriber.Options options =
        NatsEventSubscriber.Options.durable(server.server(), SUBJECT, "router-a");
    NatsEventPublisher publisher = publisher(server);

    Recorder first = new Recorder();
    NatsEventSubscriber firstRouter = subscriber(options, first);
    publishAll(publisher, range("live-", 0, 50));
    awaitPayloads(first, 50);
    firstRouter.close();

    // the router is away: a core publish on the subject is still stored by the stream
    List<String> missed = range("missed-", 0, 50);
    publishAll(publisher, missed);

    Recorder second = new Recorder();
    subscriber(options, second);
    awaitPayloads(second, 50);
    publishAll(publisher, range("later-", 0, 5));
    awaitPayloads(second, 55);

    assertThat(first.payloads()).containsExactlyElementsOf(range("live-", 0, 50));
    List<String> expected = new ArrayList<>(missed);
    expected.addAll(range("later-", 0, 5));
    assertThat(second.payloads())
        .as("acked messages are not redelivered")
        .containsExactlyElementsOf(expected);
  }

  @Test
  void aNewDurableName_readsTheStreamFromItsStart() throws Exception {
    NatsServerProcess server = server(true);
    NatsEventPublisher publisher = publisher(server);
    Recorder a = new Recorder();
    subscriber(NatsEventSubscriber.Options.durable(server.server(), SUBJECT, "router-a"), a);
    publishAll(publisher, range("e", 0, 20));
    awaitPayloads(a, 20);

    Recorder b = new Recorder();
    subscriber(NatsEventSubscriber.Options.durable(server.server(), SUBJECT, "router-b"), b);
    awaitPayloads(b, 20);

    assertThat(b.payloads()).containsExactlyElementsOf(range("e", 0, 20));
  }

  @Test
  void aDurableConsumer_ridesOutAServerRestart_withoutLosingMessages() throws Exception {
    NatsServerProcess server = server(true);
    NatsEventPublisher publisher = publisher(server);
    Recorder recorder = new Recorder();
    NatsEventSubscriber subscriber =
        subscriber(
            NatsEventSubscriber.Options.durable(server.server(), SUBJECT, "router-a"), recorder);
    publishAll(publisher, range("before-", 0, 20));
    awaitPayloads(recorder, 20);

    server.restart();
    Awaitility.await()
        .atMost(WAIT)
        .until(() -> subscriber.stats().reconnects() == 1 && publisher.stats().reconnects() == 1);
    publishAll(publisher, range("after-", 0, 20));
    awaitPayloads(recorder, 40);

    List<String> expected = new ArrayList<>(range("before-", 0, 20));
    expected.addAll(range("after-", 0, 20));
    assertThat(recorder.payloads())
        .as("a redelivery of an ack the restart forgot is skipped, not handed over twice")
        .containsExactlyElementsOf(expected);
    assertThat(subscriber.stats().messages()).isEqualTo(40);
    assertThat(recorder.events()).containsExactly("+", "-", "+again");
  }

  @Test
  void theStream_isNamedTheDynamoWay_withAnHourOfRetention() throws Exception {
    NatsServerProcess server = server(true);
    subscriber(
        NatsEventSubscriber.Options.durable(server.server(), SUBJECT, "router-a"), new Recorder());

    try (io.nats.client.Connection c = io.nats.client.Nats.connect(server.url())) {
      var info =
          c.jetStreamManagement().getStreamInfo("namespace-test-component-backend-kv-events");
      assertThat(info.getConfiguration().getSubjects()).containsExactly(SUBJECT);
      assertThat(info.getConfiguration().getMaxAge()).isEqualTo(Duration.ofHours(1));
      assertThat(c.jetStreamManagement().getConsumerNames(info.getConfiguration().getName()))
          .containsExactly("router-a");
      assertThat(
              c.jetStreamManagement()
                  .getConsumerInfo(info.getConfiguration().getName(), "router-a")
                  .getConsumerConfiguration()
                  .getAckWait())
          .as("what a departed subscriber was handed comes back soon")
          .isEqualTo(NatsEventSubscriber.ACK_WAIT);
    }
  }

  @Test
  void aDurableWorker_createsTheStream_soEventsBeforeAnyRouterAreKept() throws Exception {
    NatsServerProcess server = server(true);
    NatsEventPublisher worker = publisher(server);
    worker.storeInStream(SUBJECT);
    Awaitility.await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              try (io.nats.client.Connection c = io.nats.client.Nats.connect(server.url())) {
                assertThat(c.jetStreamManagement().getStreamNames())
                    .contains("namespace-test-component-backend-kv-events");
              }
            });
    publishAll(worker, range("early-", 0, 10));

    Recorder recorder = new Recorder();
    subscriber(NatsEventSubscriber.Options.durable(server.server(), SUBJECT, "router-a"), recorder);
    awaitPayloads(recorder, 10);
    assertThat(recorder.payloads()).containsExactlyElementsOf(range("early-", 0, 10));
  }
}
