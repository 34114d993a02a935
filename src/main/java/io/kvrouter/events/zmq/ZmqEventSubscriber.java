package io.kvrouter.events.zmq;

import io.kvrouter.protocol.vllm.VllmEventBatch;
import io.kvrouter.protocol.vllm.VllmEventCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * Follows one vLLM KV event publisher (one worker rank) and hands its batches, in sequence order
 * and each exactly once, to a {@link Listener}. PUB/SUB loses messages, so the subscriber checks
 * every sequence number (see {@link ZmqFrames}):
 *
 * <ul>
 *   <li>the next number: the batch is applied;
 *   <li>a gap: the missing batches are asked for on the publisher's replay socket (DEALER) while
 *       live batches wait; replayed and waiting batches are then applied in order, duplicates
 *       skipped;
 *   <li>at start (this subscriber is new, so what the rank held before is unknown), or on a
 *       number not above the last one (the publisher restarted and counts from 0 again): the
 *       listener is told to {@link Listener#reset} the rank, and the state is rebuilt by replay from
 *       0;
 *   <li>a replay that cannot reach back far enough (the gap is older than the publisher's buffer),
 *       or no replay socket, or no answer in time: the rank is reset and rebuilt from what there
 *       is; what happened is counted, never hidden.
 * </ul>
 *
 * <p>One thread owns both sockets; the listener is called on it, one call at a time.
 *
 * <p>Known limit, shared with every vLLM subscriber until vLLM publishes an epoch: a publisher
 * that restarts and sends more batches than this subscriber had seen, all while the subscriber is
 * cut off, looks like a gap, not a restart.
 */
public final class ZmqEventSubscriber implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ZmqEventSubscriber.class);
  private static final Duration REPLAY_TIMEOUT = Duration.ofSeconds(2);
  private static final int POLL_MILLIS = 50;

  /** Where batches go; called on the subscriber's thread. */
  public interface Listener {
    /** What the rank held before is unknown or gone: forget it. */
    void reset();

    /** The next batch, in sequence order. */
    void batch(VllmEventBatch batch);
  }

  /** Counts since start, for {@code /router/workers} and tests. */
  /**
   * @param state {@code unsynced}, {@code replaying} or {@code following} (see {@link
   *     io.kvrouter.protocol.KvEventFeed})
   * @param lastSeq the last sequence number received live; -1 before the first
   * @param incompleteReplays replays that could not bring every missing batch (the rank was reset
   *     and rebuilt from what there was)
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
      long millisSinceLastBatch) {}

  private final String endpoint;
  private final String replayEndpoint;
  private final String topic;
  private final Listener listener;
  private final ZContext context = new ZContext(1);
  private final SocketThread thread;

  private final AtomicLong lastSeqSeen = new AtomicLong(-1);
  private final AtomicLong batches = new AtomicLong();
  private final AtomicLong gaps = new AtomicLong();
  private final AtomicLong replayed = new AtomicLong();
  private final AtomicLong resets = new AtomicLong();
  private final AtomicLong malformed = new AtomicLong();
  private final AtomicLong incomplete = new AtomicLong();
  private volatile String state = "unsynced";
  private volatile long lastBatchNanos;

  // owned by the thread
  private ZMQ.Socket sub;
  private ZMQ.Socket dealer;
  private long last = -1;
  private boolean synced;
  /** Live batches waiting while a replay runs, by seq. */
  private final TreeMap<Long, byte[]> waiting = new TreeMap<>();
  private long replayFrom = -1;
  private long replayDeadline;
  private final List<Object[]> replies = new ArrayList<>();

  /**
   * @param endpoint the publisher's PUB endpoint, e.g. {@code tcp://10.0.0.5:5557}
   * @param replayEndpoint its replay endpoint, or {@code null} when it has none
   * @param topic the topic to subscribe to ({@code ""}: all)
   */
  public ZmqEventSubscriber(
      String endpoint, String replayEndpoint, String topic, Listener listener) {
    this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
    this.replayEndpoint = replayEndpoint;
    this.topic = Objects.requireNonNull(topic, "topic");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.thread = new SocketThread("kv-events-" + endpoint, this::run);
  }

  /** Connects and starts following the publisher. */
  public ZmqEventSubscriber start() {
    thread.start();
    return this;
  }

  public Stats stats() {
    long lastBatch = lastBatchNanos;
    return new Stats(
        state,
        lastSeqSeen.get(), batches.get(), gaps.get(), replayed.get(), resets.get(),
        incomplete.get(), malformed.get(),
        lastBatch == 0 ? -1 : (System.nanoTime() - lastBatch) / 1_000_000);
  }

  private void run() {
    try {
      sub = context.createSocket(SocketType.SUB);
      sub.setLinger(0);
      sub.setRcvHWM(100_000);
      sub.subscribe(topic.getBytes(ZMQ.CHARSET));
      sub.connect(endpoint);
      if (replayEndpoint != null) {
        dealer = context.createSocket(SocketType.DEALER);
        dealer.setLinger(0);
        dealer.connect(replayEndpoint);
      }
      if (dealer != null) {
        // a new subscriber knows nothing of what the rank holds: rebuild it from the buffer now,
        // rather than waiting for the publisher's next batch
        resetRank();
        requestReplay(0);
      }
      ZMQ.Poller poller = context.createPoller(2);
      int subIndex = poller.register(sub, ZMQ.Poller.POLLIN);
      int dealerIndex = dealer == null ? -1 : poller.register(dealer, ZMQ.Poller.POLLIN);
      while (thread.running()) {
        poller.poll(POLL_MILLIS);
        if (poller.pollin(subIndex)) {
          drainSub();
        }
        if (dealerIndex >= 0 && poller.pollin(dealerIndex)) {
          drainReplies();
        }
        if (replayFrom >= 0 && System.nanoTime() > replayDeadline) {
          log.warn("no replay answer from {} in {}; rebuilding from what arrived", replayEndpoint,
              REPLAY_TIMEOUT);
          finishReplay(false);
        }
      }
    } catch (RuntimeException e) {
      if (thread.running()) {
        log.error("KV event subscriber of {} stopped", endpoint, e);
      }
    } finally {
      context.close();
    }
  }

  private void drainSub() {
    ZMsg message;
    while ((message = ZMsg.recvMsg(sub, ZMQ.DONTWAIT)) != null) {
      // [topic, seq, payload]
      if (message.size() != 3) {
        malformed.incrementAndGet();
        message.destroy();
        continue;
      }
      message.pop();
      long seq;
      try {
        seq = ZmqFrames.seq(message.pop().getData());
      } catch (IllegalArgumentException e) {
        malformed.incrementAndGet();
        continue;
      }
      onLive(seq, message.pop().getData());
    }
  }

  private void onLive(long seq, byte[] payload) {
    lastSeqSeen.set(seq);
    lastBatchNanos = System.nanoTime();
    if (replayFrom >= 0) {
      waiting.put(seq, payload);
      return;
    }
    if (!synced || seq <= last) {
      // new to this publisher, or it restarted: what the rank held is unknown
      resetRank();
      if (seq == 0) {
        apply(seq, payload);
      } else {
        waiting.put(seq, payload);
        requestReplay(0);
      }
      return;
    }
    if (seq == last + 1) {
      apply(seq, payload);
      return;
    }
    gaps.incrementAndGet();
    waiting.put(seq, payload);
    requestReplay(last + 1);
  }

  private void resetRank() {
    resets.incrementAndGet();
    listener.reset();
    synced = true;
    last = -1;
  }

  private void requestReplay(long from) {
    if (dealer == null) {
      finishWithout(from);
      return;
    }
    replayFrom = from;
    state = "replaying";
    replayDeadline = System.nanoTime() + REPLAY_TIMEOUT.toNanos();
    replies.clear();
    dealer.sendMore(new byte[0]);
    dealer.send(ZmqFrames.seq(from));
  }

  /** No way to fetch what is missing: reset unless starting from scratch, then go on. */
  private void finishWithout(long from) {
    incomplete.incrementAndGet();
    if (from > 0) {
      resetRank();
    }
    applyWaiting();
  }

  private void drainReplies() {
    ZMsg reply;
    while ((reply = ZMsg.recvMsg(dealer, ZMQ.DONTWAIT)) != null) {
      // ["", (topic), seq, payload]: 2 or 3 frames after the empty delimiter
      if (reply.size() < 3 || reply.size() > 4) {
        malformed.incrementAndGet();
        reply.destroy();
        continue;
      }
      reply.pop();
      if (reply.size() == 3) {
        reply.pop();
      }
      long seq;
      try {
        seq = ZmqFrames.seq(reply.pop().getData());
      } catch (IllegalArgumentException e) {
        malformed.incrementAndGet();
        continue;
      }
      byte[] payload = reply.pop().getData();
      if (replayFrom < 0) {
        continue; // the answer to a replay already given up on
      }
      if (seq == ZmqFrames.END_OF_REPLAY || payload.length == 0) {
        finishReplay(true);
      } else {
        replies.add(new Object[] {seq, payload});
      }
    }
  }

  /**
   * Applies what the replay brought, then the live batches that waited. If the replay did not
   * start at the first missing batch, the gap is older than the publisher's buffer: the rank is
   * reset first and rebuilt from what there is.
   */
  private void finishReplay(boolean answered) {
    long from = replayFrom;
    replayFrom = -1;
    for (Object[] r : replies) {
      waiting.putIfAbsent((long) r[0], (byte[]) r[1]);
    }
    replayed.addAndGet(replies.size());
    replies.clear();
    boolean complete = answered && (waiting.isEmpty() || waiting.firstKey() <= from);
    if (!complete) {
      incomplete.incrementAndGet();
      if (from > 0) {
        resetRank();
      }
    }
    applyWaiting();
    if (replayFrom < 0) {
      state = "following"; // caught up with everything the publisher could give
    }
  }

  /** Applies waiting batches in order; a hole left among them starts another replay. */
  private void applyWaiting() {
    while (!waiting.isEmpty()) {
      long seq = waiting.firstKey();
      if (seq <= last) {
        waiting.pollFirstEntry(); // a duplicate
        continue;
      }
      if (last >= 0 && seq != last + 1) {
        gaps.incrementAndGet();
        requestReplay(last + 1);
        return;
      }
      apply(seq, waiting.pollFirstEntry().getValue());
    }
  }

  private void apply(long seq, byte[] payload) {
    last = seq;
    if (replayFrom < 0) {
      state = "following";
    }
    VllmEventBatch batch;
    try {
      batch = VllmEventCodec.decode(payload);
    } catch (IllegalArgumentException e) {
      malformed.incrementAndGet();
      log.warn("dropping malformed KV event batch {} from {}: {}", seq, endpoint, e.getMessage());
      return;
    }
    batches.incrementAndGet();
    listener.batch(batch);
  }

  @Override
  public void close() {
    thread.stop();
  }
}
