package io.kvrouter.events.zmq;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.kvrouter.testing.ManualTicker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A {@link ZmqEventSubscriber} against a {@link ScriptedPublisher} that answers replay requests
 * late, in part or never, and a listener that throws. The subscriber's clock is a {@link
 * ManualTicker}: it gives up on a replay, or probes a quiet publisher, only when a test moves the
 * clock, once the subscriber is in the state the test waits for. The waits below only stop a broken
 * subscriber from hanging the build; nothing here depends on how fast the machine is.
 */
class ZmqEventSubscriberTest {
  /** How long a replay may go without a reply, or a publisher stay quiet, in the tests' timings. */
  private static final Duration GIVE_UP = Duration.ofSeconds(3);

  /** Just past {@link #GIVE_UP}: a move of the clock that makes the subscriber give up or probe. */
  private static final Duration PAST_GIVE_UP = GIVE_UP.plusNanos(1);

  private static final Duration NEVER = Duration.ofHours(1);

  /** The largest frame the subscribers here take. */
  private static final int MAX_MESSAGE_BYTES = 16 * 1024;

  private final List<AutoCloseable> closing = new ArrayList<>();
  private final ManualTicker clock = new ManualTicker();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  private static ConditionFactory await() {
    return Awaitility.await().atMost(Duration.ofSeconds(30));
  }

  private ScriptedPublisher publisher() {
    ScriptedPublisher publisher = new ScriptedPublisher();
    closing.add(publisher);
    return publisher;
  }

  /** Gives up on a replay quickly, and never probes. */
  private static final ZmqEventSubscriber.Timing GIVING_UP =
      new ZmqEventSubscriber.Timing(NEVER, GIVE_UP, NEVER);

  private ZmqEventSubscriber subscriber(
      ScriptedPublisher publisher, ZmqEventSubscriber.Timing timing, RecordingListener listener) {
    ZmqEventSubscriber subscriber =
        new ZmqEventSubscriber(
            publisher.endpoint,
            publisher.replayEndpoint,
            "",
            listener,
            timing,
            MAX_MESSAGE_BYTES,
            clock);
    closing.add(0, subscriber);
    return subscriber.start();
  }

  /** Waits for the subscriber to connect and send its first replay request, from 0. */
  private static ScriptedPublisher.Request connected(ScriptedPublisher publisher) {
    publisher.awaitSubscriber();
    ScriptedPublisher.Request first = publisher.nextRequest();
    assertThat(first.from()).isZero();
    return first;
  }

  @Test
  void theLateAnswerToAnAbandonedReplay_isNeverTakenForTheAnswerToANewOne() {
    ScriptedPublisher publisher = publisher();
    RecordingListener listener = new RecordingListener();
    ZmqEventSubscriber subscriber = subscriber(publisher, GIVING_UP, listener);
    ScriptedPublisher.Request first = connected(publisher);
    clock.advance(PAST_GIVE_UP); // unanswered, the request is given up on and sent again
    ScriptedPublisher.Request second = publisher.nextRequest();
    assertThat(second.from()).isZero();
    assertThat(second.identity()).as("a new socket").isNotEqualTo(first.identity());
    publisher.answer(first, 7, 8); // the first request is answered only now
    publisher.end(first);
    publisher.answer(second, 0, 3);
    publisher.end(second);

    await().until(() -> listener.batches().contains(3L));
    assertThat(listener.batches()).containsExactly(0L, 1L, 2L, 3L);
    assertThat(subscriber.stats().incompleteReplays()).isZero();
    assertThat(subscriber.stats().state()).isEqualTo("following");
  }

  @Test
  void aPublisherThatNeverAnswers_isGivenUpOn_afterSomeAttempts() {
    ScriptedPublisher publisher = publisher();
    RecordingListener listener = new RecordingListener();
    ZmqEventSubscriber subscriber = subscriber(publisher, GIVING_UP, listener);
    connected(publisher); // this request, and the ones sent again, are never answered
    clock.advance(PAST_GIVE_UP);
    publisher.nextRequest();
    clock.advance(PAST_GIVE_UP);
    publisher.nextRequest();
    clock.advance(PAST_GIVE_UP);

    await().until(() -> subscriber.stats().incompleteReplays() == 1);
    assertThat(subscriber.stats().state()).isEqualTo("following");
    publisher.publish(0);
    await().until(() -> listener.batches().contains(0L));
  }

  @Test
  void aPublisherThatStopsAnsweringMidReplay_isGivenUpOn_andTheSubscriberGoesOn() {
    ScriptedPublisher publisher = publisher();
    RecordingListener listener = new RecordingListener();
    ZmqEventSubscriber subscriber = subscriber(publisher, GIVING_UP, listener);
    publisher.answer(connected(publisher), 0, 1); // and never the end
    await().until(() -> subscriber.stats().replayed() == 2);
    clock.advance(PAST_GIVE_UP);

    await().until(() -> subscriber.stats().state().equals("following"));
    assertThat(listener.batches()).as("what came is used").containsExactly(0L, 1L);
    publisher.publish(2);

    await().until(() -> listener.batches().contains(2L));
    assertThat(listener.batches()).containsExactly(0L, 1L, 2L);
    assertThat(subscriber.stats().resets()).as("only the one at the start").isEqualTo(1);
  }

  @Test
  void aListenerThatThrows_isCounted_andTheNextBatchesStillArrive() {
    ScriptedPublisher publisher = publisher();
    RecordingListener listener =
        new RecordingListener(
            block -> {
              if (block == 1) {
                throw new IllegalStateException("the index failed on batch 1");
              }
            });
    ZmqEventSubscriber subscriber = subscriber(publisher, GIVING_UP, listener);
    publisher.end(connected(publisher));
    for (long seq = 0; seq < 3; seq++) {
      publisher.publish(seq);
    }

    await().until(() -> listener.batches().contains(2L));
    assertThat(listener.batches()).containsExactly(0L, 2L);
    assertThat(subscriber.stats().listenerErrors()).isEqualTo(1);
    assertThat(subscriber.stats().state()).isEqualTo("following");
  }

  /** Thrown by a listener to kill the subscriber's thread. */
  private static final class Fatal extends Error {
    Fatal() {
      super("a fatal error in the listener (expected by this test)");
    }
  }

  @Test
  void whenTheThreadDies_theStateIsStopped() {
    ScriptedPublisher publisher = publisher();
    ZmqEventSubscriber subscriber =
        subscriber(
            publisher,
            GIVING_UP,
            new RecordingListener(
                block -> {
                  throw new Fatal();
                }));
    publisher.end(connected(publisher));
    publisher.publish(0);

    await().until(() -> subscriber.stats().state().equals("stopped"));
  }

  @Test
  void aQuietPublisher_isProbed_soALostLastBatchStillArrives() {
    ScriptedPublisher publisher = publisher();
    RecordingListener listener = new RecordingListener();
    ZmqEventSubscriber subscriber =
        subscriber(
            publisher,
            new ZmqEventSubscriber.Timing(GIVE_UP, Duration.ofSeconds(10), NEVER),
            listener);
    publisher.end(connected(publisher));
    publisher.publish(0);
    publisher.publish(1);
    await().until(() -> listener.batches().contains(1L));
    // batch 2 was lost on the PUB socket, and the publisher has nothing more to say: only a
    // probe finds it, answered from the publisher's buffer
    clock.advance(PAST_GIVE_UP);
    ScriptedPublisher.Request probe = publisher.nextRequest();
    assertThat(probe.from()).as("from the last batch applied").isEqualTo(1);
    publisher.answer(probe, 1, 2);
    publisher.end(probe);

    await().until(() -> listener.batches().contains(2L));

    assertThat(listener.calls()).containsExactly(-1L, 0L, 1L, 2L);
    assertThat(subscriber.stats().resets()).as("only the one at the start").isEqualTo(1);
  }

  @Test
  void aReplayThatTricklesOnAndNeverEnds_isAbandonedAtItsDeadline_andTheRankGoesOn() {
    Duration deadline = Duration.ofSeconds(30);
    Duration step = GIVE_UP.dividedBy(2); // each reply comes before the replay could go quiet
    ScriptedPublisher publisher = publisher();
    RecordingListener listener = new RecordingListener();
    ZmqEventSubscriber subscriber =
        subscriber(publisher, new ZmqEventSubscriber.Timing(NEVER, GIVE_UP, deadline), listener);
    publisher.end(connected(publisher));
    publisher.publish(0);
    publisher.publish(1);
    for (long seq = 3; seq <= 10; seq++) { // 2 is lost: a replay is asked for
      publisher.publish(seq);
    }
    await().until(() -> subscriber.stats().lastSeq() == 10);
    ScriptedPublisher.Request gap = publisher.nextRequest();
    assertThat(gap.from()).isEqualTo(1);
    // the publisher answers with a batch it never had, again and again, and never ends
    long replies = 0;
    for (Duration age = Duration.ZERO; age.compareTo(deadline) <= 0; age = age.plus(step)) {
      publisher.answer(gap, 50, 50);
      long answered = ++replies;
      await().until(() -> subscriber.stats().replayed() == answered);
      assertThat(listener.batches()).as("held while the replay runs").containsExactly(0L, 1L);
      clock.advance(step);
    }

    await().until(() -> listener.batches().contains(10L));
    assertThat(listener.calls())
        .as("2 never came: the rank is reset and goes on from the live batches held")
        .containsExactly(-1L, 0L, 1L, -1L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
    assertThat(subscriber.stats().replaysOverdue()).isEqualTo(1);
    assertThat(subscriber.stats().incompleteReplays()).isEqualTo(1);
    assertThat(publisher.nextRequest().from())
        .as("the batch the replay brought is beyond a hole, which is asked for")
        .isEqualTo(10);
  }

  @Test
  void aLiveFrameAboveTheLimit_dropsTheConnection_notTheSubscriber_andTheNextBatchIsApplied() {
    ScriptedPublisher publisher = publisher();
    RecordingListener listener = new RecordingListener();
    ZmqEventSubscriber subscriber = subscriber(publisher, GIVING_UP, listener);
    publisher.end(connected(publisher));
    publisher.publish(0);
    await().until(() -> listener.batches().contains(0L));
    // a well-formed batch 1, but four times the limit: ZeroMQ refuses it before reading it
    publisher.publish(1, ScriptedPublisher.payload(1, 4 * MAX_MESSAGE_BYTES));

    await().until(() -> subscriber.stats().oversized() == 1);
    publisher.awaitSubscriber(); // ZeroMQ does not reconnect after that; the subscriber does
    publisher.publish(2);
    ScriptedPublisher.Request gap = publisher.nextRequest();
    assertThat(gap.from()).isZero();
    publisher.answer(gap, 0, 0); // batch 1 cannot be had: the publisher can only send it too big
    publisher.end(gap);

    await().until(() -> listener.batches().contains(2L));
    assertThat(listener.calls()).containsExactly(-1L, 0L, -1L, 2L);
    assertThat(subscriber.stats().malformed()).isZero();
    assertThat(subscriber.stats().state()).isEqualTo("following");
  }

  @Test
  void aReplayedFrameAboveTheLimit_isRefused_andTheReplayAskedAgain() {
    ScriptedPublisher publisher = publisher();
    RecordingListener listener = new RecordingListener();
    ZmqEventSubscriber subscriber = subscriber(publisher, GIVING_UP, listener);
    ScriptedPublisher.Request first = connected(publisher);
    publisher.answer(first, 0, ScriptedPublisher.payload(0, 4 * MAX_MESSAGE_BYTES));
    publisher.end(first);

    await().until(() -> subscriber.stats().oversized() == 1);
    clock.advance(PAST_GIVE_UP); // nothing came: asked again, on a new connection
    ScriptedPublisher.Request second = publisher.nextRequest();
    assertThat(second.from()).isZero();
    publisher.answer(second, 0, 1);
    publisher.end(second);

    await().until(() -> listener.batches().contains(1L));
    assertThat(listener.calls()).containsExactly(-1L, 0L, 1L);
    assertThat(subscriber.stats().incompleteReplays()).isZero();
  }

  @Test
  void aFloodOfMalformedBatches_isCounted_andLoggedAsOneWarning() {
    Logger logger = (Logger) LoggerFactory.getLogger(ZmqEventSubscriber.class);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    closing.add(() -> logger.detachAppender(appender));
    ScriptedPublisher publisher = publisher();
    RecordingListener listener = new RecordingListener();
    ZmqEventSubscriber subscriber = subscriber(publisher, GIVING_UP, listener);
    publisher.end(connected(publisher));
    byte[] garbage = "not msgpack".getBytes(StandardCharsets.UTF_8);
    for (long seq = 0; seq < 200; seq++) {
      publisher.publish(seq, garbage);
    }
    publisher.publish(200);

    await().until(() -> listener.batches().contains(200L));
    assertThat(subscriber.stats().malformed()).isEqualTo(200);
    assertThat(appender.list.stream().filter(e -> e.getLevel() == Level.WARN))
        .as("one summary for the minute, the rest at DEBUG")
        .hasSize(1);
  }
}
