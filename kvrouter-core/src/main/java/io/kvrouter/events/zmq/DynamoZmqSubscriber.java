package io.kvrouter.events.zmq;

import io.kvrouter.protocol.dynamo.DynamoEventFormatException;
import io.kvrouter.protocol.dynamo.EventEnvelope;
import io.kvrouter.protocol.dynamo.EventEnvelopeCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZFrame;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * Reads one topic of Dynamo's ZMQ event plane ("E3", direct mode) from any number of publishers:
 * one SUB socket connected to each publisher's endpoint ({@code tcp://host:port}), each valid
 * message's {@link EventEnvelope} handed to a {@link Listener}. What the payload means (KV events,
 * load) is the listener's business.
 *
 * <h2>What is delivered</h2>
 *
 * <ul>
 *   <li>Only messages whose topic frame is exactly the topic: ZeroMQ filters on a prefix, so {@code
 *       kv-events-v2} would get through a {@code kv-events} subscription; those are not ours and
 *       are dropped without further ado ({@link #otherTopics()}).
 *   <li>Only well-formed ones ({@link EventEnvelopeCodec#decodeMessage}: four frames, 8-byte ids
 *       that agree with the envelope, frame version 1, a readable envelope whose topic is the topic
 *       frame). Anything else is counted ({@link #malformed()}), reported to {@link
 *       Listener#onMalformed}, logged, and dropped; the next message is read as usual.
 *   <li>Each (publisher id, sequence) pair once. A message arrives twice when its publisher is
 *       reached twice: its endpoint listed twice, or two brokers relaying it. The subscriber
 *       remembers the last {@value #DEDUP_WINDOW} distinct pairs it delivered, oldest forgotten
 *       first, and drops a pair it remembers ({@link #duplicates()}). Dynamo does the same with
 *       100,000; a window this size (about 1.3 MB) covers any lag between two paths short of
 *       sixteen thousand messages. Keeping one last-seen sequence per publisher instead would be
 *       smaller but would drop a message that one path lost and the other brought late. Gaps in a
 *       publisher's sequence are not this class's concern (Dynamo detects them on the events' own
 *       ids).
 * </ul>
 *
 * <h2>Threads and sockets</h2>
 *
 * One thread owns the socket (ZeroMQ sockets are not thread-safe) and calls the listener, one call
 * at a time. A listener that throws is logged and counted ({@link #listenerErrors()}); the next
 * message is delivered as usual. The socket reconnects a lost publisher every 100 ms at first,
 * backing off to 1 s, and queues up to 100,000 messages (Dynamo's high-water mark).
 */
public final class DynamoZmqSubscriber implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DynamoZmqSubscriber.class);

  /** Distinct (publisher id, sequence) pairs remembered to drop duplicates. */
  public static final int DEDUP_WINDOW = 16_384;

  private static final int RECEIVE_TIMEOUT_MILLIS = 100;
  private static final int RECONNECT_MILLIS = 100;
  private static final int RECONNECT_MAX_MILLIS = 1_000;

  /** A peer that accepts TCP but never completes the ZMTP handshake is dropped after this. */
  private static final int HANDSHAKE_MILLIS = 5_000;

  private static final int HIGH_WATER_MARK = 100_000;

  /** Where messages go; called on the subscriber's thread. */
  public interface Listener {
    /** A valid message, not seen before. */
    void onEnvelope(EventEnvelope envelope);

    /** A message on the topic was dropped as malformed, for the given reason. */
    default void onMalformed(String reason) {}
  }

  private record Seen(long publisherId, long sequence) {}

  /** Insertion-ordered, bounded: the oldest pair goes when the window is full. */
  private static final class Window extends LinkedHashMap<Seen, Boolean> {
    private static final long serialVersionUID = 1L;

    Window() {
      super(DEDUP_WINDOW * 4 / 3 + 1);
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<Seen, Boolean> eldest) {
      return size() > DEDUP_WINDOW;
    }
  }

  private final List<String> endpoints;
  private final String topic;
  private final byte[] topicBytes;
  private final Listener listener;
  private final SocketThread thread;
  private final Window window = new Window(); // owned by the thread

  private final AtomicLong delivered = new AtomicLong();
  private final AtomicLong malformed = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private final AtomicLong otherTopics = new AtomicLong();
  private final AtomicLong listenerErrors = new AtomicLong();
  private volatile boolean stopped;

  /**
   * @param endpoints the publishers' endpoints, e.g. {@code tcp://10.0.0.5:41234}
   * @param topic the topic, matched exactly, e.g. {@code kv-events}
   */
  public DynamoZmqSubscriber(List<String> endpoints, String topic, Listener listener) {
    this.endpoints = List.copyOf(endpoints);
    if (this.endpoints.isEmpty()) {
      throw new IllegalArgumentException("at least one publisher endpoint is needed");
    }
    this.topic = Objects.requireNonNull(topic, "topic");
    this.topicBytes = topic.getBytes(StandardCharsets.UTF_8);
    this.listener = Objects.requireNonNull(listener, "listener");
    this.thread = new SocketThread("dynamo-events-" + topic, this::run);
  }

  /** Connects to every endpoint and starts reading. */
  public DynamoZmqSubscriber start() {
    thread.start();
    return this;
  }

  /** Messages handed to the listener (whether or not it threw). */
  public long delivered() {
    return delivered.get();
  }

  /** Messages on the topic dropped as malformed. */
  public long malformed() {
    return malformed.get();
  }

  /** Messages dropped because their (publisher id, sequence) had been delivered already. */
  public long duplicates() {
    return duplicates.get();
  }

  /** Messages whose topic frame only starts with the topic. */
  public long otherTopics() {
    return otherTopics.get();
  }

  /** Calls of the listener that threw. */
  public long listenerErrors() {
    return listenerErrors.get();
  }

  /** True once the thread has ended: after {@link #close()}, or if it failed. */
  public boolean stopped() {
    return stopped;
  }

  private void run() {
    ZContext context = new ZContext(1);
    try {
      ZMQ.Socket sub = context.createSocket(SocketType.SUB);
      sub.setLinger(0);
      sub.setRcvHWM(HIGH_WATER_MARK);
      sub.setReconnectIVL(RECONNECT_MILLIS);
      sub.setReconnectIVLMax(RECONNECT_MAX_MILLIS);
      sub.setHandshakeIvl(HANDSHAKE_MILLIS);
      sub.setReceiveTimeOut(RECEIVE_TIMEOUT_MILLIS);
      sub.subscribe(topicBytes);
      for (String endpoint : endpoints) {
        sub.connect(endpoint);
      }
      while (thread.running()) {
        ZMsg message = ZMsg.recvMsg(sub);
        if (message != null) {
          handle(frames(message));
        }
      }
    } catch (Throwable e) { // logged here, where the topic is known; the thread ends either way
      if (thread.running()) {
        log.error("Dynamo event subscriber of {} on {} stopped", topic, endpoints, e);
      }
    } finally {
      stopped = true;
      context.close();
    }
  }

  private static List<byte[]> frames(ZMsg message) {
    List<byte[]> frames = new ArrayList<>(message.size());
    for (ZFrame frame : message) {
      frames.add(frame.getData());
    }
    message.destroy();
    return frames;
  }

  private void handle(List<byte[]> frames) {
    if (!Arrays.equals(frames.get(0), topicBytes)) {
      otherTopics.incrementAndGet();
      return;
    }
    EventEnvelope envelope;
    try {
      envelope = EventEnvelopeCodec.decodeMessage(frames);
    } catch (DynamoEventFormatException e) {
      dropMalformed(e.getMessage());
      return;
    }
    if (window.put(new Seen(envelope.publisherId(), envelope.sequence()), Boolean.TRUE) != null) {
      duplicates.incrementAndGet();
      return;
    }
    delivered.incrementAndGet();
    try {
      listener.onEnvelope(envelope);
    } catch (RuntimeException e) {
      listenerFailed(
          "message "
              + Long.toUnsignedString(envelope.sequence())
              + " of publisher "
              + Long.toUnsignedString(envelope.publisherId()),
          e);
    }
  }

  private void dropMalformed(String reason) {
    long count = malformed.incrementAndGet();
    if (count == 1 || count % 1_000 == 0) { // a flood of them must not flood the log
      log.warn(
          "dropping a malformed message on {} (malformed so far: {}): {}", topic, count, reason);
    } else {
      log.debug("dropping a malformed message on {}: {}", topic, reason);
    }
    try {
      listener.onMalformed(reason);
    } catch (RuntimeException e) {
      listenerFailed("a malformed message", e);
    }
  }

  private void listenerFailed(String call, RuntimeException e) {
    listenerErrors.incrementAndGet();
    log.error("the listener of Dynamo events on {} failed on {}; going on", topic, call, e);
  }

  /** Stops the thread (waiting for it) and closes the socket. */
  @Override
  public void close() {
    thread.stop();
  }
}
