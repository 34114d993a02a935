package io.kvrouter.events.zmq;

import io.kvrouter.common.FaultLog;
import io.kvrouter.config.EventPlaneConfig;
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
 * Reads one topic of Dynamo's ZMQ event plane ("E3", direct mode) from any number of publishers: a
 * SUB socket connected to each publisher's endpoint ({@code tcp://host:port}), each valid message's
 * {@link EventEnvelope} handed to a {@link Listener}. What the payload means (KV events, load) is
 * the listener's business.
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
 *       Listener#onMalformed}, logged through a {@link FaultLog} (at DEBUG, one WARN a minute at
 *       most), and dropped; the next message is read as usual.
 *   <li>Only frames up to {@code maxMessageBytes}: ZeroMQ drops the connection of a publisher that
 *       sends a larger one before reading it; the subscriber connects again ({@link DropWatch}),
 *       counts it ({@link #oversized()}), reports it to {@link Listener#onOversized} and logs it
 *       like a malformed message. What was lost meanwhile shows as a gap in the events' ids.
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
 * One thread owns the sockets (ZeroMQ sockets are not thread-safe), one per publisher so that a
 * dropped connection is known to be that publisher's, and calls the listener, one call at a time. A
 * listener that throws is logged and counted ({@link #listenerErrors()}); the next message is
 * delivered as usual. A socket reconnects a lost publisher every 100 ms at first, backing off to 1
 * s, and queues up to 100,000 messages (Dynamo's high-water mark).
 */
public final class DynamoZmqSubscriber implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DynamoZmqSubscriber.class);

  /** Distinct (publisher id, sequence) pairs remembered to drop duplicates. */
  public static final int DEDUP_WINDOW = 16_384;

  private static final int POLL_MILLIS = 100;

  /** Messages read from one publisher before the others' turn. */
  private static final int MESSAGES_PER_TURN = 1_024;

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

    /** ZeroMQ dropped the connection to {@code endpoint}: it sent a frame above the limit. */
    default void onOversized(String endpoint) {}
  }

  private record Seen(long publisherId, long sequence) {}

  /** One publisher's socket. */
  private record Link(String endpoint, ZMQ.Socket socket, DropWatch drops) {}

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
  private final long maxMessageBytes;
  private final SocketThread thread;
  private final Window window = new Window(); // owned by the thread
  private final FaultLog faults;

  private final AtomicLong delivered = new AtomicLong();
  private final AtomicLong malformed = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private final AtomicLong otherTopics = new AtomicLong();
  private final AtomicLong listenerErrors = new AtomicLong();
  private final AtomicLong oversized = new AtomicLong();
  private volatile boolean stopped;

  /**
   * @param endpoints the publishers' endpoints, e.g. {@code tcp://10.0.0.5:41234}
   * @param topic the topic, matched exactly, e.g. {@code kv-events}
   */
  public DynamoZmqSubscriber(List<String> endpoints, String topic, Listener listener) {
    this(endpoints, topic, EventPlaneConfig.DEFAULT_MAX_MESSAGE_BYTES, listener);
  }

  /**
   * @param maxMessageBytes the largest frame taken from a publisher ({@code
   *     --kv-events-max-message-bytes})
   */
  public DynamoZmqSubscriber(
      List<String> endpoints, String topic, long maxMessageBytes, Listener listener) {
    this.endpoints = List.copyOf(endpoints);
    if (this.endpoints.isEmpty()) {
      throw new IllegalArgumentException("at least one publisher endpoint is needed");
    }
    this.topic = Objects.requireNonNull(topic, "topic");
    this.topicBytes = topic.getBytes(StandardCharsets.UTF_8);
    this.listener = Objects.requireNonNull(listener, "listener");
    if (maxMessageBytes < 1) {
      throw new IllegalArgumentException("maxMessageBytes must be positive: " + maxMessageBytes);
    }
    this.maxMessageBytes = maxMessageBytes;
    this.thread = new SocketThread("dynamo-events-" + topic, this::run);
    this.faults = FaultLog.of(log, "faults of Dynamo event publishers on " + topic);
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

  /** Connections dropped because the publisher sent a frame above the limit. */
  public long oversized() {
    return oversized.get();
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
      ZMQ.Poller poller = context.createPoller(endpoints.size());
      List<Link> links = new ArrayList<>();
      for (String endpoint : endpoints) {
        Link link = connect(context, endpoint);
        poller.register(link.socket(), ZMQ.Poller.POLLIN);
        links.add(link);
      }
      while (thread.running()) {
        poller.poll(POLL_MILLIS);
        for (Link link : links) {
          read(link);
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

  private Link connect(ZContext context, String endpoint) {
    ZMQ.Socket sub = context.createSocket(SocketType.SUB);
    sub.setLinger(0);
    sub.setRcvHWM(HIGH_WATER_MARK);
    sub.setReconnectIVL(RECONNECT_MILLIS);
    sub.setReconnectIVLMax(RECONNECT_MAX_MILLIS);
    sub.setHandshakeIvl(HANDSHAKE_MILLIS);
    DropWatch drops = DropWatch.limit(sub, maxMessageBytes);
    sub.subscribe(topicBytes);
    sub.connect(endpoint);
    return new Link(endpoint, sub, drops);
  }

  /** Reads what {@code link}'s publisher sent, and connects it again if ZeroMQ dropped it. */
  private void read(Link link) {
    ZMsg message;
    for (int read = 0;
        read < MESSAGES_PER_TURN && (message = ZMsg.recvMsg(link.socket(), ZMQ.DONTWAIT)) != null;
        read++) {
      handle(frames(message));
    }
    long dropped = link.drops().takeOversized();
    if (dropped > 0) {
      oversized.addAndGet(dropped);
      faults.fault(
          link.endpoint()
              + " sent a frame above --kv-events-max-message-bytes ("
              + maxMessageBytes
              + "); the connection was dropped");
      for (long i = 0; i < dropped; i++) {
        try {
          listener.onOversized(link.endpoint());
        } catch (RuntimeException e) {
          listenerFailed("an oversized message", e);
        }
      }
    }
    link.drops().reconnectIfDropped(link.endpoint());
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
    malformed.incrementAndGet();
    faults.fault("a malformed message: " + reason);
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
