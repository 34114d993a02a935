package io.kvrouter.events.zmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.common.Ticker;
import io.kvrouter.protocol.vllm.VllmEvent;
import io.kvrouter.protocol.vllm.VllmEventBatch;
import io.kvrouter.protocol.vllm.VllmEventCodec;
import io.kvrouter.testing.FreePorts;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.LongStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * A publisher and a subscriber over real ZeroMQ sockets on loopback: every batch reaches the
 * listener once and in order, whatever the network loses, and the rank is reset whenever its
 * earlier state is unknown.
 */
class ZmqEventPlaneTest {
  private final List<AutoCloseable> closing = new ArrayList<>();
  private final RecordingListener seen = new RecordingListener();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  private ZmqEventPublisher publisher(ZmqEventPublisher.Options options) {
    ZmqEventPublisher publisher = ZmqEventPublisher.start(options);
    closing.add(publisher);
    return publisher;
  }

  private ZmqEventSubscriber subscriber(ZmqEventPublisher publisher) {
    String replay = publisher.replayPort() < 0 ? null : "tcp://127.0.0.1:" + publisher.replayPort();
    ZmqEventSubscriber subscriber =
        new ZmqEventSubscriber(
            "tcp://127.0.0.1:" + publisher.port(), replay, "", seen, Ticker.SYSTEM);
    closing.add(0, subscriber);
    return subscriber.start();
  }

  private static void publishRange(ZmqEventPublisher publisher, long from, long to) {
    for (long i = from; i < to; i++) {
      publisher.publish(List.of(VllmEvent.BlockRemoved.of(List.of(i))));
    }
  }

  /**
   * Publishes batches from {@code next} on, one at a time, until the subscriber has received one
   * live: its subscription is then in place (a PUB socket drops what it sends before the
   * subscription reaches it, ZeroMQ's slow joiner). Returns the number of the next batch.
   */
  private static long publishUntilOneArrivesLive(
      ZmqEventPublisher publisher, ZmqEventSubscriber subscriber, long next) {
    long[] published = {next};
    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              if (subscriber.stats().lastSeq() >= 0) {
                return true;
              }
              publishRange(publisher, published[0], ++published[0]);
              return false;
            });
    return published[0];
  }

  private List<Long> batchesSeen() {
    return seen.batches();
  }

  private void awaitBatches(int count) {
    Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> batchesSeen().size() >= count);
  }

  /** Waits until the subscriber's first replay (at start) is over. */
  private void awaitSynced(ZmqEventSubscriber subscriber) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> subscriber.stats().state().equals("following"));
    assertThat(subscriber.stats().resets()).isEqualTo(1);
  }

  @Test
  void everyBatchArrivesOnceInOrder_thoughAFifthAreLost() {
    ZmqEventPublisher publisher =
        publisher(ZmqEventPublisher.Options.defaults("127.0.0.1").withDropRate(0.2, 7));
    ZmqEventSubscriber subscriber = subscriber(publisher);
    awaitSynced(subscriber);
    long next = publishUntilOneArrivesLive(publisher, subscriber, 0);
    long total = Math.max(300, next);

    publishRange(publisher, next, total);
    awaitBatches((int) total);

    assertThat(batchesSeen())
        .containsExactlyElementsOf(LongStream.range(0, total).boxed().toList());
    assertThat(subscriber.stats().gaps()).isPositive();
    assertThat(subscriber.stats().replayed()).isPositive();
    assertThat(subscriber.stats().incompleteReplays()).isZero();
  }

  @Test
  void aNewSubscriber_rebuildsTheRankFromTheReplayBuffer() {
    ZmqEventPublisher publisher = publisher(ZmqEventPublisher.Options.defaults("127.0.0.1"));
    publishRange(publisher, 0, 50);

    ZmqEventSubscriber subscriber = subscriber(publisher);
    awaitBatches(50);
    long next = publishUntilOneArrivesLive(publisher, subscriber, 50);
    long total = Math.max(60, next);
    publishRange(publisher, next, total);
    awaitBatches((int) total);

    assertThat(seen.calls().get(0)).as("reset first").isEqualTo(-1L);
    assertThat(batchesSeen())
        .containsExactlyElementsOf(LongStream.range(0, total).boxed().toList());
    assertThat(subscriber.stats().resets()).isEqualTo(1);
  }

  @Test
  void aPublisherRestart_resetsTheRank() {
    ZmqEventPublisher first = publisher(ZmqEventPublisher.Options.defaults("127.0.0.1"));
    ZmqEventSubscriber subscriber = subscriber(first);
    awaitSynced(subscriber);
    long unpublished = publishUntilOneArrivesLive(first, subscriber, 0);
    long total = Math.max(20, unpublished);
    publishRange(first, unpublished, total);
    awaitBatches((int) total);
    first.close();

    ZmqEventPublisher second =
        publisher(
            ZmqEventPublisher.Options.defaults("127.0.0.1")
                .withPorts(first.port(), first.replayPort()));
    // batches sent before the subscriber has reconnected are lost on the PUB socket; the first
    // one it gets shows the restart, and the replay from 0 brings the ones before it
    long[] next = {100};
    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              publishRange(second, next[0], ++next[0]);
              return subscriber.stats().resets() == 2;
            });
    publishRange(second, next[0], next[0] + 5);
    long lastHash = next[0] + 4;
    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> seen.batches().contains(lastHash));

    List<Long> calls = seen.calls();
    List<Long> after = calls.subList(calls.lastIndexOf(-1L), calls.size());
    List<Long> expected = new ArrayList<>(List.of(-1L));
    LongStream.rangeClosed(100, lastHash).forEach(expected::add);
    assertThat(after).containsExactlyElementsOf(expected);
    assertThat(subscriber.stats().resets()).isEqualTo(2);
  }

  @Test
  void aMalformedBatch_isCountedAndSkipped_theNextOneStillApplies() throws Exception {
    try (ZContext context = new ZContext(1)) {
      // an XPUB hands over the subscription, so the batches go out only once it is in place:
      // without a replay socket nothing brings back what a late subscriber missed
      ZMQ.Socket pub = context.createSocket(SocketType.XPUB);
      pub.setReceiveTimeOut(20_000);
      int port = pub.bindToRandomPort("tcp://127.0.0.1");
      RecordingListener listener = new RecordingListener();
      ZmqEventSubscriber subscriber =
          new ZmqEventSubscriber("tcp://127.0.0.1:" + port, null, "", listener, Ticker.SYSTEM);
      closing.add(0, subscriber);
      subscriber.start();
      assertThat(pub.recv()).as("the subscription").isNotNull();

      byte[] valid =
          VllmEventCodec.encode(
              new VllmEventBatch(1.0, List.of(VllmEvent.BlockRemoved.of(List.of(9L))), 0),
              VllmEventCodec.Encoding.MAP);
      pub.sendMore("");
      pub.sendMore(ZmqFrames.seq(0));
      pub.send(new byte[] {(byte) 0xc1}); // never valid msgpack
      pub.sendMore("");
      pub.sendMore(ZmqFrames.seq(1));
      pub.send(valid);
      pub.send("only one frame");

      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> subscriber.stats().malformed() == 2);
      assertThat(listener.batches()).containsExactly(9L);
    }
  }

  @Test
  void aPublisherThatCannotBindItsReplayPort_releasesItsPubPort() throws Exception {
    int pubPort = FreePorts.consecutive(1);
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      assertThatThrownBy(
              () ->
                  ZmqEventPublisher.start(
                      ZmqEventPublisher.Options.defaults("127.0.0.1")
                          .withPorts(pubPort, taken.getLocalPort())))
          .isInstanceOf(RuntimeException.class);
    }
    try (ServerSocket again = new ServerSocket(pubPort, 50, InetAddress.getLoopbackAddress())) {
      assertThat(again.getLocalPort()).as("the PUB port is free again").isEqualTo(pubPort);
    }
  }

  @Test
  void withoutAReplaySocket_aGapResetsTheRankAndGoesOn() {
    ZmqEventPublisher publisher =
        publisher(
            ZmqEventPublisher.Options.defaults("127.0.0.1").withPorts(0, -1).withDropRate(0.3, 11));
    ZmqEventSubscriber subscriber = subscriber(publisher);
    // nothing replays what PUB/SUB loses before the subscription is in place (slow under load),
    // so publish one at a time until a batch gets through
    long published = publishUntilOneArrivesLive(publisher, subscriber, 0);
    // then 100 more after the first one that got through (however many the wait took), of which
    // the seeded drops lose about 30; the last of those may be among them, so keep publishing
    // until one past it arrives
    long last = published + 99;
    publishRange(publisher, published, last + 1);
    long[] next = {last + 1};
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              if (subscriber.stats().lastSeq() >= last) {
                return true;
              }
              publishRange(publisher, next[0], ++next[0]);
              return false;
            });

    assertThat(subscriber.stats().incompleteReplays()).isPositive();
    assertThat(subscriber.stats().resets()).isGreaterThan(1);
    List<Long> batches = batchesSeen();
    assertThat(batches).isSorted().doesNotHaveDuplicates().hasSizeLessThan((int) next[0]);
  }

  @Test
  void aReplayClientSendingAFrameAboveTheLimit_isDisconnected_andOthersAreStillAnswered() {
    ZmqEventPublisher publisher = publisher(ZmqEventPublisher.Options.defaults("127.0.0.1"));
    String replay = "tcp://127.0.0.1:" + publisher.replayPort();
    ZContext context = new ZContext(1);
    closing.add(context);
    ZMQ.Socket hostile = replayDealer(context);
    AtomicBoolean dropped = new AtomicBoolean();
    hostile.setEventHook(event -> dropped.set(true), ZMQ.EVENT_DISCONNECTED);
    hostile.connect(replay);
    hostile.sendMore(new byte[0]);
    hostile.send(new byte[ZmqEventPublisher.MAX_REQUEST_FRAME_BYTES + 1]);

    Awaitility.await().atMost(Duration.ofSeconds(20)).untilTrue(dropped);
    ZMQ.Socket client = replayDealer(context);
    client.setReceiveTimeOut(20_000);
    client.connect(replay);
    client.sendMore(new byte[0]);
    client.send(ZmqFrames.seq(0));
    ZMsg answer = ZMsg.recvMsg(client);
    assertThat(answer).as("an answer").isNotNull();
    assertThat(ZmqFrames.numbered(answer, 3, 4))
        .as("nothing published yet: the end of the replay at once")
        .hasValueSatisfying(end -> assertThat(end.seq()).isEqualTo(ZmqFrames.END_OF_REPLAY));
  }

  /**
   * A DEALER that connects as the router's replay requests do ({@link ReplayRequest}): a fresh
   * connection that jeromq leaves without a handshake is dropped after a second and made again, so
   * what was queued on it still goes out.
   */
  private static ZMQ.Socket replayDealer(ZContext context) {
    ZMQ.Socket socket = context.createSocket(SocketType.DEALER);
    socket.setHandshakeIvl(ReplayRequest.HANDSHAKE_MILLIS);
    socket.setReconnectIVL(ReplayRequest.RECONNECT_MILLIS);
    return socket;
  }
}
