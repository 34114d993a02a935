package io.kvrouter.events.zmq;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The replay socket's own ZeroMQ intervals. jeromq 0.6.0 leaves a few fresh connections in a
 * thousand connected but never handshaking, and only its handshake timer revives them (see {@link
 * ReplayRequest#HANDSHAKE_MILLIS}); the request must go out on the next connection before the
 * subscriber takes the replay for unanswered.
 */
class ReplayRequestTest {
  @Test
  void aStalledHandshake_isRevivedByZeroMq_wellBeforeTheSubscriberGivesUpOnTheReplay() {
    try (ZContext context = new ZContext(1)) {
      ReplayRequest request = ReplayRequest.send(context, "tcp://127.0.0.1:9", 0, 1024, 0);
      ZMQ.Socket socket = request.socket();
      Duration revival = Duration.ofMillis(socket.getHandshakeIvl() + socket.getReconnectIVL());

      assertThat(revival)
          .as("a revived connection leaves time for the answer, twice over")
          .isLessThanOrEqualTo(
              ZmqEventSubscriber.Timing.defaults().replayInactivity().dividedBy(2));
      request.close();
    }
  }
}
