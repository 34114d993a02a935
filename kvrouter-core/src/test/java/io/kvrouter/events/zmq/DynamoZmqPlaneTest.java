package io.kvrouter.events.zmq;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.dynamo.EventEnvelope;
import io.kvrouter.protocol.dynamo.EventEnvelopeCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.stream.LongStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * {@link DynamoZmqPublisher} and {@link DynamoZmqSubscriber} over real ZeroMQ sockets on loopback.
 * PUB/SUB drops what is sent before the subscription reaches the publisher, so every test first
 * waits for it: by publishing a warm-up payload until one arrives, or, with a raw XPUB publisher,
 * by reading the subscription itself. No test sleeps.
 */
class DynamoZmqPlaneTest {
  private static final String TOPIC = DynamoMsgpackCodec.KV_EVENTS_TOPIC;
  private static final byte[] WARM_UP = "warm-up".getBytes(StandardCharsets.UTF_8);
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  /** Records what the subscriber hands over; may be told to throw on a payload. */
  private static final class Recording implements DynamoZmqSubscriber.Listener {
    final List<EventEnvelope> envelopes = new CopyOnWriteArrayList<>();
    final List<String> malformed = new CopyOnWriteArrayList<>();
    final List<String> oversized = new CopyOnWriteArrayList<>();
    volatile byte[] throwOn;

    @Override
    public void onEnvelope(EventEnvelope envelope) {
      envelopes.add(envelope);
      if (throwOn != null && Arrays.equals(envelope.payload(), throwOn)) {
        throw new IllegalStateException("a listener bug");
      }
    }

    @Override
    public void onMalformed(String reason) {
      malformed.add(reason);
    }

    @Override
    public void onOversized(String endpoint) {
      oversized.add(endpoint);
    }

    boolean anyFrom(long publisherId, int skipping) {
      return envelopes.stream().skip(skipping).anyMatch(e -> e.publisherId() == publisherId);
    }

    /** What arrived apart from warm-ups, in order. */
    List<EventEnvelope> real() {
      return envelopes.stream().filter(e -> !Arrays.equals(e.payload(), WARM_UP)).toList();
    }

    List<EventEnvelope> realFrom(long publisherId) {
      return real().stream().filter(e -> e.publisherId() == publisherId).toList();
    }
  }

  private DynamoZmqPublisher publisher(DynamoZmqPublisher.Options options) {
    DynamoZmqPublisher publisher = DynamoZmqPublisher.start(options);
    closing.add(publisher);
    return publisher;
  }

  private DynamoZmqSubscriber subscriber(List<String> endpoints, Recording listener) {
    DynamoZmqSubscriber subscriber = new DynamoZmqSubscriber(endpoints, TOPIC, listener);
    closing.add(0, subscriber); // closed before the publishers
    return subscriber.start();
  }

  private static String endpoint(int port) {
    return "tcp://127.0.0.1:" + port;
  }

  private static void await(BooleanSupplier condition) {
    Awaitility.await().atMost(PATIENCE).until(condition::getAsBoolean);
  }

  /** Publishes warm-ups until {@code ready} holds: the subscription has reached the publisher. */
  private static void warmUp(DynamoZmqPublisher publisher, BooleanSupplier ready) {
    Awaitility.await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              if (ready.getAsBoolean()) {
                return true;
              }
              publisher.publish(WARM_UP);
              return false;
            });
  }

  private static byte[] kvPayload(long worker, long eventId) {
    return DynamoMsgpackCodec.encodeBatch(
        List.of(
            new DynamoRouterEvent(
                new RouterEvent(
                    WorkerRank.of(Long.toString(worker)), KvCacheEvent.removed(eventId)),
                eventId)));
  }

  // ------------------------------------------------------------------ round trips

  @Test
  void everyPayloadArrivesInOrder_withTheEnvelopeThePublisherStamped() {
    DynamoZmqPublisher publisher =
        publisher(DynamoZmqPublisher.Options.of("127.0.0.1", TOPIC, 0xFEDC_BA98_7654_3210L));
    Recording seen = new Recording();
    DynamoZmqSubscriber subscriber = subscriber(List.of(endpoint(publisher.port())), seen);
    warmUp(publisher, () -> !seen.envelopes.isEmpty());

    long firstSequence = publisher.published();
    long before = System.currentTimeMillis();
    for (long i = 0; i < 100; i++) {
      publisher.publish(kvPayload(7, i));
    }
    long after = System.currentTimeMillis();
    await(() -> seen.real().size() == 100);

    List<EventEnvelope> real = seen.real();
    assertThat(real)
        .extracting(EventEnvelope::sequence)
        .containsExactlyElementsOf(
            LongStream.range(firstSequence, firstSequence + 100).boxed().toList());
    assertThat(real)
        .allSatisfy(
            e -> {
              assertThat(e.publisherId()).isEqualTo(0xFEDC_BA98_7654_3210L);
              assertThat(e.topic()).isEqualTo(TOPIC);
              assertThat(e.publishedAtMillis()).isBetween(before, after);
            });
    assertThat(DynamoMsgpackCodec.decodePayload(real.get(42).payload()))
        .extracting(DynamoRouterEvent::eventId)
        .containsExactly(42L);
    // the warm-ups were numbered first, from 0, on the same sequence
    assertThat(seen.envelopes.get(0).sequence()).isLessThan(firstSequence);
    assertThat(subscriber.malformed()).isZero();
    assertThat(subscriber.duplicates()).isZero();
  }

  @Test
  void twoPublishersIntoOneSubscriber_eachInItsOwnSequence() {
    DynamoZmqPublisher a = publisher(DynamoZmqPublisher.Options.of("127.0.0.1", TOPIC, 1));
    DynamoZmqPublisher b = publisher(DynamoZmqPublisher.Options.of("127.0.0.1", TOPIC, 2));
    Recording seen = new Recording();
    subscriber(List.of(endpoint(a.port()), endpoint(b.port())), seen);
    warmUp(a, () -> seen.envelopes.stream().anyMatch(e -> e.publisherId() == 1));
    warmUp(b, () -> seen.envelopes.stream().anyMatch(e -> e.publisherId() == 2));

    long fromA = a.published();
    long fromB = b.published();
    for (long i = 0; i < 50; i++) {
      a.publish(kvPayload(1, i));
      b.publish(kvPayload(2, i));
    }
    await(() -> seen.real().size() == 100);

    assertThat(seen.realFrom(1))
        .extracting(EventEnvelope::sequence)
        .containsExactlyElementsOf(LongStream.range(fromA, fromA + 50).boxed().toList());
    assertThat(seen.realFrom(2))
        .extracting(EventEnvelope::sequence)
        .containsExactlyElementsOf(LongStream.range(fromB, fromB + 50).boxed().toList());
  }

  @Test
  void aPublisherReachedTwice_isDeliveredOnce() {
    try (ZContext context = new ZContext(1)) {
      // one socket bound on two ports: every message reaches the subscriber over two
      // connections, as through two relays; a verbose XPUB shows both subscriptions
      ZMQ.Socket pub = context.createSocket(SocketType.XPUB);
      pub.setXpubVerbose(true);
      pub.setReceiveTimeOut((int) PATIENCE.toMillis());
      int first = pub.bindToRandomPort("tcp://127.0.0.1");
      int second = pub.bindToRandomPort("tcp://127.0.0.1");
      Recording seen = new Recording();
      DynamoZmqSubscriber subscriber = subscriber(List.of(endpoint(first), endpoint(second)), seen);
      assertThat(pub.recv()).as("the first subscription").isNotNull();
      assertThat(pub.recv()).as("the second subscription").isNotNull();

      for (long i = 0; i < 20; i++) {
        send(
            pub,
            EventEnvelopeCodec.encodeMessage(new EventEnvelope(9, i, 1, TOPIC, kvPayload(9, i))));
      }
      await(() -> subscriber.duplicates() == 20 && subscriber.delivered() == 20);

      assertThat(seen.envelopes)
          .extracting(EventEnvelope::sequence)
          .containsExactlyInAnyOrderElementsOf(LongStream.range(0, 20).boxed().toList());
    }
  }

  @Test
  void droppedOnPurpose_theSequenceStillAdvances() {
    DynamoZmqPublisher lossy =
        publisher(DynamoZmqPublisher.Options.of("127.0.0.1", TOPIC, 5).withDropRate(0.3, 11));
    Recording seen = new Recording();
    subscriber(List.of(endpoint(lossy.port())), seen);
    warmUp(lossy, () -> !seen.envelopes.isEmpty());

    long first = lossy.published();
    long droppedBefore = lossy.dropped();
    for (long i = 0; i < 200; i++) {
      lossy.publish(kvPayload(5, i));
    }
    long expected = 200;
    await(
        () ->
            lossy.published() == first + expected
                && seen.real().size() + (lossy.dropped() - droppedBefore) == expected);

    List<Long> sequences = seen.real().stream().map(EventEnvelope::sequence).toList();
    assertThat(lossy.dropped() - droppedBefore).isBetween(20L, 120L);
    assertThat(sequences)
        .isSorted()
        .doesNotHaveDuplicates()
        .allSatisfy(s -> assertThat(s).isBetween(first, first + expected - 1));
  }

  // ------------------------------------------------------------------ malformed and failing

  @Test
  void aFrameAboveTheLimit_dropsThatPublishersConnection_whichComesBack_andTheOthersGoOn() {
    DynamoZmqPublisher big = publisher(DynamoZmqPublisher.Options.of("127.0.0.1", TOPIC, 1));
    DynamoZmqPublisher other = publisher(DynamoZmqPublisher.Options.of("127.0.0.1", TOPIC, 2));
    Recording seen = new Recording();
    DynamoZmqSubscriber subscriber =
        new DynamoZmqSubscriber(
            List.of(endpoint(big.port()), endpoint(other.port())), TOPIC, 4096, seen);
    closing.add(0, subscriber);
    subscriber.start();
    warmUp(big, () -> seen.anyFrom(1, 0));
    warmUp(other, () -> seen.anyFrom(2, 0));

    big.publish(new byte[16 * 1024]);
    await(() -> subscriber.oversized() == 1);
    int before = seen.envelopes.size();
    warmUp(big, () -> seen.anyFrom(1, before)); // connected again
    big.publish(kvPayload(7, 1));
    other.publish(kvPayload(8, 1));

    await(() -> seen.realFrom(1).size() == 1 && seen.realFrom(2).size() == 1);
    assertThat(seen.oversized).containsExactly(endpoint(big.port()));
    assertThat(seen.real()).allMatch(e -> e.payload().length < 4096);
    assertThat(subscriber.malformed()).isZero();
  }

  @Test
  void malformedMessages_areCountedAndDropped_andTheNextGoodOneStillArrives() {
    try (ZContext context = new ZContext(1)) {
      // an XPUB hands over the subscription, so the messages go out only once it is in place
      ZMQ.Socket pub = context.createSocket(SocketType.XPUB);
      pub.setReceiveTimeOut((int) PATIENCE.toMillis());
      int port = pub.bindToRandomPort("tcp://127.0.0.1");
      Recording seen = new Recording();
      DynamoZmqSubscriber subscriber = subscriber(List.of(endpoint(port)), seen);
      assertThat(pub.recv()).as("the subscription").isNotNull();

      EventEnvelope good = new EventEnvelope(3, 0, 1, TOPIC, kvPayload(3, 0));
      List<byte[]> frames = EventEnvelopeCodec.encodeMessage(good);
      byte[] badVersion = frames.get(3).clone();
      badVersion[0] = 2;

      send(pub, frames.subList(0, 3)); // three frames
      send(pub, List.of(frames.get(0), frames.get(1), frames.get(2), badVersion));
      send(
          pub,
          List.of(
              frames.get(0),
              EventEnvelopeCodec.encodeMessage(new EventEnvelope(4, 0, 1, TOPIC, new byte[0]))
                  .get(1),
              frames.get(2),
              frames.get(3)));
      send(pub, List.of(frames.get(0), frames.get(1), new byte[] {0}, frames.get(3)));
      send(
          pub,
          EventEnvelopeCodec.encodeMessage(
              new EventEnvelope(3, 1, 1, TOPIC + "-v2", new byte[0]))); // another topic
      send(pub, frames);

      await(() -> subscriber.delivered() == 1);
      assertThat(subscriber.malformed()).isEqualTo(4);
      assertThat(subscriber.otherTopics()).isEqualTo(1);
      assertThat(seen.envelopes).containsExactly(good);
      assertThat(seen.malformed)
          .hasSize(4)
          .satisfiesExactly(
              r -> assertThat(r).startsWith("frames: 3 frames, expected 4"),
              r -> assertThat(r).startsWith("frame: version 2 is not supported"),
              r -> assertThat(r).startsWith("frames[1]: publisher id 4 differs"),
              r -> assertThat(r).startsWith("frames[2] (sequence): 1 bytes, expected 8"));
    }
  }

  @Test
  void aListenerThatThrows_isCounted_andTheNextMessageStillArrives() {
    DynamoZmqPublisher publisher = publisher(DynamoZmqPublisher.Options.of("127.0.0.1", TOPIC, 8));
    Recording seen = new Recording();
    byte[] poison = kvPayload(8, 0);
    seen.throwOn = poison;
    DynamoZmqSubscriber subscriber = subscriber(List.of(endpoint(publisher.port())), seen);
    warmUp(publisher, () -> !seen.envelopes.isEmpty());

    publisher.publish(poison);
    publisher.publish(kvPayload(8, 1));
    await(() -> seen.real().size() == 2);

    assertThat(subscriber.listenerErrors()).isEqualTo(1);
    assertThat(subscriber.stopped()).isFalse();
    subscriber.close();
    assertThat(subscriber.stopped()).isTrue();
  }

  private static void send(ZMQ.Socket pub, List<byte[]> frames) {
    for (int i = 0; i < frames.size() - 1; i++) {
      pub.sendMore(frames.get(i));
    }
    pub.send(frames.get(frames.size() - 1));
  }
}
