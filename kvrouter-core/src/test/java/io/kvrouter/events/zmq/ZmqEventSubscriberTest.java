package io.kvrouter.events.zmq;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

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
      new ZmqEventSubscriber.Timing(NEVER, GIVE_UP);

  private ZmqEventSubscriber subscriber(
      ScriptedPublisher publisher, ZmqEventSubscriber.Timing timing, RecordingListener listener) {
    ZmqEventSubscriber subscriber =
        new ZmqEventSubscriber(
            publisher.endpoint, publisher.replayEndpoint, "", listener, timing, clock);
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
            publisher, new ZmqEventSubscriber.Timing(GIVE_UP, Duration.ofSeconds(10)), listener);
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
}
