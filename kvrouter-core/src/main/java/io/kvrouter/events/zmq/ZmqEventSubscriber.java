package io.kvrouter.events.zmq;

import io.kvrouter.common.FaultLog;
import io.kvrouter.common.LastSeen;
import io.kvrouter.common.Ticker;
import io.kvrouter.config.EventPlaneConfig;
import io.kvrouter.protocol.KvEventFeed;
import io.kvrouter.protocol.vllm.VllmEventBatch;
import io.kvrouter.protocol.vllm.VllmEventCodec;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * Follows one vLLM KV event publisher (one worker rank) and hands its batches, in sequence order
 * and each exactly once, to a {@link Listener}. PUB/SUB loses messages, so every sequence number is
 * checked by a {@link BatchSequencer} (gaps are fetched from the publisher's replay socket,
 * restarts reset the rank, a new subscriber rebuilds the rank from the replay buffer); this class
 * owns the sockets and the thread around it.
 *
 * <p>One thread owns the sockets (ZeroMQ sockets are not thread-safe): a SUB for live batches and,
 * while a replay runs, a DEALER of its own ({@link ReplayRequest}). The listener is called on that
 * thread, one call at a time. A listener that throws is counted and logged, and the subscriber goes
 * on with the next batch; if the thread dies all the same, {@link #stats()} says {@code stopped}.
 *
 * <p>A publisher quiet for {@link Timing#quietProbe()} is probed: a replay request from the last
 * batch applied, so that a lost last batch is noticed although no later one reveals the gap, and a
 * publisher that restarted while quiet is noticed too (see {@link BatchSequencer}). A replay with
 * no reply for {@link Timing#replayInactivity()} is given up (a publisher that died mid-replay
 * never blocks the thread), and one that has not ended after {@link Timing#replayDeadline()} is
 * abandoned (a publisher that trickles replies and never ends would otherwise have the rank's live
 * batches held for ever; what is held during a replay is bounded too, see {@link BatchSequencer}).
 * All are timed on the {@link Ticker} it is given.
 *
 * <p>A bad publisher costs bounded memory and log: frames above {@code maxMessageBytes} are refused
 * by ZeroMQ before they are read (it drops the connection; this subscriber connects again, see
 * {@link DropWatch}), and every fault of the publisher's (a malformed or oversized message, an
 * abandoned replay) is counted in {@link #stats()} and logged through a {@link FaultLog}: at DEBUG,
 * with one WARN a minute at most.
 *
 * <p>vLLM publishes no epoch, so a restart is recognised by its numbers going back or, when it
 * looks like a gap (the publisher sent more batches than this subscriber had seen while the
 * subscriber was cut off), by the replay: its copy of the last batch applied differs (see {@link
 * BatchSequencer}).
 */
public final class ZmqEventSubscriber implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ZmqEventSubscriber.class);
  private static final int POLL_MILLIS = 50;
  private static final int LIVE_BATCHES_PER_TURN = 1_024;

  /** The SUB socket's reconnect interval: a restarted publisher is found again within a second. */
  private static final int RECONNECT_MILLIS = 1_000;

  /**
   * How long the SUB connection's ZMTP handshake may take, instead of ZeroMQ's default 30 s: a peer
   * that accepts TCP but never speaks, or a handshake jeromq stalled (see {@link
   * ReplayRequest#HANDSHAKE_MILLIS}), is dropped and connected again; what was published meanwhile
   * is replayed like any gap.
   */
  private static final int HANDSHAKE_MILLIS = 5_000;

  /** Where batches go; called on the subscriber's thread. */
  public interface Listener {
    /** What the rank held before is unknown or gone: forget it. */
    void reset();

    /** The next batch, in sequence order. */
    void batch(VllmEventBatch batch);
  }

  /**
   * @param quietProbe how long without a live batch before the publisher is probed
   * @param replayInactivity how long a replay may go without a reply before it is given up
   * @param replayDeadline how long a replay may take in all before it is abandoned: far more than a
   *     whole vLLM replay buffer takes to arrive, even over a slow link
   */
  public record Timing(Duration quietProbe, Duration replayInactivity, Duration replayDeadline) {
    public static Timing defaults() {
      return new Timing(Duration.ofSeconds(5), Duration.ofSeconds(3), Duration.ofSeconds(30));
    }
  }

  /**
   * Counts since start, for {@code /router/workers} and metrics.
   *
   * @param state a {@link KvEventFeed} state: {@code unsynced}, {@code replaying}, {@code
   *     following} or {@code stopped}
   * @param lastSeq the last sequence number received live; -1 before the first
   * @param incompleteReplays replays that could not bring every missing batch (the rank was reset
   *     and rebuilt from what there was)
   * @param duplicates live batches dropped because a replay had already brought them
   * @param listenerErrors calls of the listener that threw
   * @param oversized connections ZeroMQ dropped because the publisher sent a frame above the limit,
   *     live or in a replay
   * @param replaysOverHeldLimit replays abandoned because too many batches came to be held
   * @param replaysOverdue replays abandoned because they had not ended by their deadline
   */
  public record Stats(
      String state,
      long lastSeq,
      long batches,
      long gaps,
      long replayed,
      long resets,
      long incompleteReplays,
      long malformed,
      long duplicates,
      long listenerErrors,
      long oversized,
      long replaysOverHeldLimit,
      long replaysOverdue,
      long millisSinceLastBatch) {}

  private final String endpoint;
  private final String replayEndpoint;
  private final String topic;
  private final Listener listener;
  private final Timing timing;
  private final long maxMessageBytes;
  private final Ticker ticker;
  private final SocketThread thread;
  private final BatchSequencer sequencer;
  private final FaultLog faults;

  private final AtomicLong lastSeqSeen = new AtomicLong(-1);
  private final AtomicLong batches = new AtomicLong();
  private final AtomicLong malformed = new AtomicLong();
  private final AtomicLong listenerErrors = new AtomicLong();
  private final AtomicLong oversized = new AtomicLong();
  private volatile boolean stopped;
  private final LastSeen lastBatch = new LastSeen();

  // owned by the thread
  private ZContext context;
  private ZMQ.Poller poller;
  private ReplayRequest replay;
  private long quietSinceNanos;
  private DropWatch liveDrops;
  private long replaysOverHeldLimitLogged;

  /**
   * @param endpoint the publisher's PUB endpoint, e.g. {@code tcp://10.0.0.5:5557}
   * @param replayEndpoint its replay endpoint, or {@code null} when it has none
   * @param topic the topic to subscribe to ({@code ""}: all)
   * @param ticker where the time is read
   */
  public ZmqEventSubscriber(
      String endpoint, String replayEndpoint, String topic, Listener listener, Ticker ticker) {
    this(
        endpoint,
        replayEndpoint,
        topic,
        listener,
        Timing.defaults(),
        EventPlaneConfig.DEFAULT_MAX_MESSAGE_BYTES,
        ticker);
  }

  /**
   * @param maxMessageBytes the largest frame taken from the publisher ({@code
   *     --kv-events-max-message-bytes})
   */
  public ZmqEventSubscriber(
      String endpoint,
      String replayEndpoint,
      String topic,
      Listener listener,
      Timing timing,
      long maxMessageBytes,
      Ticker ticker) {
    this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
    this.replayEndpoint = replayEndpoint;
    this.topic = Objects.requireNonNull(topic, "topic");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.timing = Objects.requireNonNull(timing, "timing");
    if (maxMessageBytes < 1) {
      throw new IllegalArgumentException("maxMessageBytes must be positive: " + maxMessageBytes);
    }
    this.maxMessageBytes = maxMessageBytes;
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.thread = new SocketThread("kv-events-" + endpoint, this::run);
    this.sequencer = new BatchSequencer(new Output(), replayEndpoint != null);
    this.faults =
        new FaultLog(
            log, "faults of KV event publisher " + endpoint, FaultLog.DEFAULT_INTERVAL, ticker);
  }

  /** Connects and starts following the publisher. */
  public ZmqEventSubscriber start() {
    thread.start();
    return this;
  }

  public Stats stats() {
    return new Stats(
        stopped ? KvEventFeed.STOPPED : sequencer.state(),
        lastSeqSeen.get(),
        batches.get(),
        sequencer.gaps(),
        sequencer.replayed(),
        sequencer.resets(),
        sequencer.incompleteReplays(),
        malformed.get(),
        sequencer.duplicates(),
        listenerErrors.get(),
        oversized.get(),
        sequencer.replaysOverHeldLimit(),
        sequencer.replaysOverdue(),
        lastBatch.millisSince(ticker.nanos()));
  }

  private void run() {
    context = new ZContext(1);
    try {
      ZMQ.Socket sub = context.createSocket(SocketType.SUB);
      sub.setLinger(0);
      sub.setRcvHWM(100_000);
      sub.setReconnectIVL(RECONNECT_MILLIS);
      sub.setHandshakeIvl(HANDSHAKE_MILLIS);
      liveDrops = DropWatch.limit(sub, maxMessageBytes);
      sub.subscribe(topic.getBytes(ZMQ.CHARSET));
      sub.connect(endpoint);
      poller = context.createPoller(2);
      poller.register(sub, ZMQ.Poller.POLLIN);
      quietSinceNanos = ticker.nanos();
      sequencer.start();
      while (thread.running()) {
        poller.poll(POLL_MILLIS);
        readLive(sub);
        readReplay();
        reconnectIfDropped();
        logReplaysOverHeldLimit();
        probeIfQuiet();
      }
    } catch (Throwable e) { // logged here, where the endpoint is known; the thread ends either way
      log.error("KV event subscriber of {} stopped; its rank is no longer followed", endpoint, e);
    } finally {
      stopped = true;
      context.close();
    }
  }

  /**
   * Reads the live batches waiting, at most {@link #LIVE_BATCHES_PER_TURN}: under a flood of live
   * batches the replay socket is still read in time (its inactivity is timed from its last read).
   */
  private void readLive(ZMQ.Socket sub) {
    ZMsg message;
    for (int read = 0;
        read < LIVE_BATCHES_PER_TURN && (message = ZMsg.recvMsg(sub, ZMQ.DONTWAIT)) != null;
        read++) {
      // [topic, seq, payload]
      Optional<ZmqFrames.Numbered> batch = ZmqFrames.numbered(message, 3, 3);
      if (batch.isEmpty()) {
        malformed.incrementAndGet();
        faults.fault("a live message that is not [topic, 8-byte seq, payload]");
        continue;
      }
      lastSeqSeen.set(batch.get().seq());
      quietSinceNanos = ticker.nanos();
      lastBatch.at(quietSinceNanos);
      sequencer.live(batch.get().seq(), batch.get().payload());
    }
  }

  private void readReplay() {
    if (replay == null) {
      return;
    }
    long now = ticker.nanos();
    ReplayRequest reading = replay;
    boolean ended =
        reading.read(
            new ReplayRequest.Replies() {
              @Override
              public void batch(long seq, byte[] payload) {
                sequencer.replayed(seq, payload);
              }

              @Override
              public void malformed() {
                malformed.incrementAndGet();
                faults.fault("a replay reply that is not [\"\", (topic), 8-byte seq, payload]");
              }
            },
            now);
    if (replay != reading) {
      return; // too much came to be held: the sequencer abandoned it while it was read
    }
    countOversized(reading.takeOversized());
    if (ended) {
      closeReplay();
      quietSinceNanos = now;
      sequencer.replayEnded(true);
    } else if (reading.quietNanos(now) > timing.replayInactivity().toNanos()) {
      // Replies that stop short of the end marker: the publisher died mid-answer, or its ROUTER
      // dropped the rest (it drops beyond its send high-water mark). What came is used; a hole it
      // leaves is asked for again. No reply at all: the publisher cannot be reached.
      boolean partly = reading.anyReply();
      log.info(
          "{} replay answer from {} in {}",
          partly ? "no more of the" : "no",
          replayEndpoint,
          timing.replayInactivity());
      closeReplay();
      quietSinceNanos = now;
      sequencer.replayEnded(partly);
    } else if (reading.ageNanos(now) > timing.replayDeadline().toNanos()) {
      faults.fault(
          "the replay from "
              + replayEndpoint
              + " had not ended after "
              + timing.replayDeadline()
              + "; abandoned");
      quietSinceNanos = now;
      sequencer.replayOverdue();
    }
  }

  /**
   * Connects the SUB socket again after ZeroMQ dropped its connection: it does not itself after a
   * frame above the limit or another protocol error (see {@link DropWatch}).
   */
  private void reconnectIfDropped() {
    countOversized(liveDrops.takeOversized());
    liveDrops.reconnectIfDropped(endpoint);
  }

  private void countOversized(long count) {
    if (count > 0) {
      oversized.addAndGet(count);
      faults.fault(
          "a frame above --kv-events-max-message-bytes ("
              + maxMessageBytes
              + "); the connection was dropped");
    }
  }

  private void logReplaysOverHeldLimit() {
    long abandoned = sequencer.replaysOverHeldLimit();
    if (abandoned != replaysOverHeldLimitLogged) {
      replaysOverHeldLimitLogged = abandoned;
      faults.fault(
          "a replay from "
              + replayEndpoint
              + " was abandoned: the batches held meanwhile reached the limit");
    }
  }

  private void probeIfQuiet() {
    long now = ticker.nanos();
    if (replay == null && now - quietSinceNanos > timing.quietProbe().toNanos()) {
      quietSinceNanos = now; // the next probe after another quiet period
      sequencer.probe();
    }
  }

  private void closeReplay() {
    if (replay != null) {
      countOversized(replay.takeOversized());
      poller.unregister(replay.socket());
      replay.close();
      replay = null;
    }
  }

  /** Decodes a batch and hands it on; a bad payload is counted and skipped. */
  private void deliver(long seq, byte[] payload) {
    VllmEventBatch batch;
    try {
      batch = VllmEventCodec.decode(payload);
    } catch (IllegalArgumentException e) {
      malformed.incrementAndGet();
      faults.fault("malformed batch " + seq + ": " + e.getMessage());
      return;
    }
    batches.incrementAndGet();
    try {
      listener.batch(batch);
    } catch (RuntimeException e) {
      listenerFailed("batch " + seq, e);
    }
  }

  private void listenerFailed(String call, RuntimeException e) {
    listenerErrors.incrementAndGet();
    log.error("the KV event listener of {} failed on {}; going on", endpoint, call, e);
  }

  /** What the sequencer asks for, done with this subscriber's sockets and listener. */
  private final class Output implements BatchSequencer.Output {
    @Override
    public void reset() {
      try {
        listener.reset();
      } catch (RuntimeException e) {
        listenerFailed("reset", e);
      }
    }

    @Override
    public void apply(long seq, byte[] payload) {
      deliver(seq, payload);
    }

    @Override
    public void openReplay(long from) {
      closeReplay();
      replay = ReplayRequest.send(context, replayEndpoint, from, maxMessageBytes, ticker.nanos());
      poller.register(replay.socket(), ZMQ.Poller.POLLIN);
    }

    @Override
    public void closeReplay() {
      ZmqEventSubscriber.this.closeReplay();
    }
  }

  @Override
  public void close() {
    thread.stop();
  }
}
