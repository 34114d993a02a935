package io.kvrouter.routing;

import io.kvrouter.common.Ticker;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerStreamException;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Gives up response streams whose worker stopped sending ({@code
 * --worker-stream-idle-timeout-secs}): a worker that hangs after it accepted a request (stopped,
 * deadlocked, its GPU wedged) would otherwise hold its clients forever. Every stream a worker opens
 * is {@link #watch watched}; a periodic {@link #sweep()} ends each one that has received nothing
 * for the timeout while its subscriber wanted more, by cancelling it at the worker and failing it
 * with {@link WorkerStreamException#stalled}. Time spent paused by the subscriber (a slow client)
 * does not count.
 *
 * <p>One sweep over the streams in flight per period instead of a timer per stream: a timer reset
 * on every token would cost more than the tokens. A stall is noticed between the timeout and the
 * timeout plus one period ({@link #period}).
 */
final class StalledStreams {
  private final Duration idleTimeout;
  private final long idleNanos;
  private final Ticker ticker;
  private final Set<WatchedStream> watched = ConcurrentHashMap.newKeySet();
  private Vertx vertx;
  private long timer = -1;

  /** Streams are swept only when the caller calls {@link #sweep()}; see {@link #start}. */
  StalledStreams(Duration idleTimeout, Ticker ticker) {
    if (idleTimeout.isNegative() || idleTimeout.isZero()) {
      throw new IllegalArgumentException("idle timeout must be positive: " + idleTimeout);
    }
    this.idleTimeout = idleTimeout;
    this.idleNanos = idleTimeout.toNanos();
    this.ticker = ticker;
  }

  /** Watched streams swept every {@link #period} on a Vert.x timer, until {@link #close()}. */
  static StalledStreams start(Vertx vertx, Duration idleTimeout, Ticker ticker) {
    StalledStreams streams = new StalledStreams(idleTimeout, ticker);
    streams.vertx = vertx;
    streams.timer = vertx.setPeriodic(period(idleTimeout).toMillis(), id -> streams.sweep());
    return streams;
  }

  /** A quarter of the timeout, between 10 ms and 1 s. */
  static Duration period(Duration idleTimeout) {
    long millis = Math.max(10, Math.min(1000, idleTimeout.toMillis() / 4));
    return Duration.ofMillis(millis);
  }

  /** {@code stream}, from worker {@code workerId}, as its subscriber must see it: watched. */
  ResponseStream watch(ResponseStream stream, String workerId) {
    return new WatchedStream(this, stream, workerId);
  }

  /** Ends every watched stream idle for the timeout; returns how many it ended. */
  int sweep() {
    long now = ticker.nanos();
    int ended = 0;
    for (WatchedStream stream : watched) {
      if (stream.expireIfIdle(now, idleNanos)) {
        ended++;
      }
    }
    return ended;
  }

  /** Streams watched now (subscribed and not ended). */
  int size() {
    return watched.size();
  }

  long now() {
    return ticker.nanos();
  }

  void add(WatchedStream stream) {
    watched.add(stream);
  }

  void remove(WatchedStream stream) {
    watched.remove(stream);
  }

  /** The failure a stream from {@code workerId} ends with when it stalls. */
  WorkerStreamException stall(String workerId) {
    long millis = idleTimeout.toMillis();
    String seconds =
        millis % 1000 == 0 ? String.valueOf(millis / 1000) : String.valueOf(millis / 1000.0);
    return WorkerStreamException.stalled(
        "worker "
            + workerId
            + " stopped sending: no output for "
            + seconds
            + " s (--worker-stream-idle-timeout-secs); the request was cancelled there");
  }

  void close() {
    if (vertx != null) {
      vertx.cancelTimer(timer);
    }
  }
}
