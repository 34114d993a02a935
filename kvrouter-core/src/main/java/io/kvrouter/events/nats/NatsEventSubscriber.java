package io.kvrouter.events.nats;

import io.kvrouter.common.FaultLog;
import io.kvrouter.common.LastSeen;
import io.kvrouter.common.Ticker;
import io.kvrouter.config.EventPlaneConfig;
import io.kvrouter.config.NatsServer;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.nats.client.MessageConsumer;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.StreamInfo;
import java.io.IOException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows one NATS subject (the router side of the event plane) and hands each message's payload,
 * as opaque bytes, to a {@link Listener}; decoding is the listener's job. Two modes:
 *
 * <ul>
 *   <li><b>core</b> ({@link Options#core}): a plain subscription. Fast, but at-most-once: whatever
 *       is published while this subscriber is disconnected (server restart, network cut) or before
 *       it subscribed is gone. The listener is therefore told of every {@link
 *       Listener#disconnected()} and {@link Listener#connected(boolean) reconnect}, so the router
 *       can mark the feed stale and rebuild state from the workers;
 *   <li><b>durable</b> ({@link Options#durable}, Dynamo's {@code --durable-kv-events}): a JetStream
 *       durable consumer named per router on the stream {@link NatsSubjects#streamName(String)},
 *       which is created when missing (file storage, {@link Options#DEFAULT_STREAM_MAX_AGE}
 *       retention, as Dynamo's docs say). Each message is acked after the listener returns, so what
 *       arrived while this router was away, or was in flight when it died, is delivered when a
 *       subscriber with the same durable name comes back (up to the stream's max age). A listener
 *       that throws has its message terminated, not redelivered: a payload it cannot take will not
 *       become takeable by retrying. JetStream delivers at least once (an ack still in flight when
 *       the server restarts is forgotten), so this subscriber skips any message whose stream
 *       sequence it has already handed over; a new subscriber process may still see a message
 *       twice. Messages the server handed to a subscriber that then went away (its pull request
 *       outlives its connection for a moment) come back after {@link #ACK_WAIT}, not JetStream's
 *       default 30 s.
 * </ul>
 *
 * <p>A payload above {@link Options#maxMessageBytes()} is dropped unseen by the listener (and, in
 * durable mode, terminated so that it is not delivered again), counted ({@link Stats#oversized()})
 * and logged through a {@link FaultLog}. The server's own {@code max_payload} (1 MiB unless
 * configured) bounds what jnats reads in the first place.
 *
 * <p>Connecting is retried until it succeeds, and reconnecting forever (jnats). The listener is
 * called one call at a time (messages on jnats's dispatcher thread, connection changes on its
 * callback thread, serialized by a lock).
 */
public final class NatsEventSubscriber implements AutoCloseable {
  /** How long the server waits for an ack before it delivers a message again. */
  static final Duration ACK_WAIT = Duration.ofSeconds(5);

  /** How long a new subscription's round trip to the server may take before it counts anyway. */
  private static final Duration SUBSCRIBE_ROUND_TRIP = Duration.ofSeconds(5);

  private static final Logger log = LoggerFactory.getLogger(NatsEventSubscriber.class);

  /** Where payloads and connection changes go. */
  public interface Listener {
    /** One message's payload, in the order the server delivered it. */
    void message(byte[] payload);

    /**
     * The connection is up: the first time ({@code reconnect == false}), or again after a {@link
     * #disconnected()} — in core mode messages of the gap are lost.
     */
    default void connected(boolean reconnect) {}

    /** The connection to the server was lost; jnats is reconnecting. */
    default void disconnected() {}
  }

  /**
   * @param server e.g. {@code nats://localhost:4222} (Dynamo's {@code NATS_SERVER})
   * @param subject e.g. {@link NatsSubjects#kvEvents}
   * @param durable the JetStream durable consumer name (one per router), or null for core NATS
   * @param streamMaxAge retention of a stream this subscriber creates (durable mode)
   * @param maxMessageBytes the largest payload handed to the listener; larger ones are dropped
   */
  public record Options(
      NatsServer server,
      String subject,
      String durable,
      Duration streamMaxAge,
      long maxMessageBytes) {
    public static final Duration DEFAULT_STREAM_MAX_AGE = Duration.ofHours(1);

    public Options {
      Objects.requireNonNull(server, "server");
      Objects.requireNonNull(subject, "subject");
      Objects.requireNonNull(streamMaxAge, "streamMaxAge");
      if (subject.isBlank()) {
        throw new IllegalArgumentException("subject must not be blank");
      }
      if (durable != null
          && (durable.isEmpty()
              || durable
                  .chars()
                  .anyMatch(c -> c == '.' || c == '*' || c == '>' || Character.isWhitespace(c)))) {
        throw new IllegalArgumentException(
            "durable consumer name must be non-empty without '.', '*', '>' or whitespace: '"
                + durable
                + "'");
      }
      if (streamMaxAge.isNegative() || streamMaxAge.isZero()) {
        throw new IllegalArgumentException("streamMaxAge must be positive");
      }
      if (maxMessageBytes < 1) {
        throw new IllegalArgumentException("maxMessageBytes must be positive");
      }
    }

    /** A core NATS subscription. */
    public static Options core(NatsServer server, String subject) {
      return new Options(
          server,
          subject,
          null,
          DEFAULT_STREAM_MAX_AGE,
          EventPlaneConfig.DEFAULT_MAX_MESSAGE_BYTES);
    }

    /** A JetStream durable consumer named {@code durable}. */
    public static Options durable(NatsServer server, String subject, String durable) {
      return new Options(
          server,
          subject,
          Objects.requireNonNull(durable, "durable"),
          DEFAULT_STREAM_MAX_AGE,
          EventPlaneConfig.DEFAULT_MAX_MESSAGE_BYTES);
    }

    /** These options, with payloads above {@code bytes} dropped. */
    public Options withMaxMessageBytes(long bytes) {
      return new Options(server, subject, durable, streamMaxAge, bytes);
    }

    public boolean isDurable() {
      return durable != null;
    }
  }

  /**
   * Counts since start, for {@code /router/workers} and tests.
   *
   * @param state {@code connecting}, {@code following}, {@code disconnected} or {@code closed}
   * @param duplicates durable mode: redeliveries of messages the listener already had (JetStream is
   *     at-least-once: an ack in flight when the server restarts is lost), acked and skipped
   * @param listenerErrors messages the listener threw on (terminated in durable mode)
   * @param setupFailures failed attempts to subscribe (e.g. JetStream missing on the server)
   * @param oversized payloads above {@link Options#maxMessageBytes()}, dropped
   * @param millisSinceLastMessage -1 before the first
   */
  public record Stats(
      String state,
      long messages,
      long disconnects,
      long reconnects,
      long duplicates,
      long listenerErrors,
      long setupFailures,
      long oversized,
      long millisSinceLastMessage) {}

  private final Options options;
  private final Listener listener;
  private final Ticker ticker;
  private final Connector connector;
  private final Object listenerLock = new Object();
  private final AtomicLong messages = new AtomicLong();
  private final AtomicLong listenerErrors = new AtomicLong();
  private final AtomicLong setupFailures = new AtomicLong();
  private final AtomicLong oversized = new AtomicLong();
  private final FaultLog faults;
  private final LastSeen lastMessage = new LastSeen();
  private volatile boolean subscribed;
  private final CountDownLatch firstSubscribed = new CountDownLatch(1);
  private volatile boolean closed;
  private final AtomicLong duplicates = new AtomicLong();

  /**
   * Durable mode: the stream this consumer reads, by creation time (a re-created stream restarts
   * its sequence).
   */
  private ZonedDateTime streamCreated;

  /**
   * Durable mode: the highest stream sequence handed to the listener; anything at or below it is a
   * redelivery.
   */
  private long deliveredStreamSeq;

  private Dispatcher dispatcher;
  private MessageConsumer consumer;

  private NatsEventSubscriber(Options options, Listener listener, Ticker ticker) {
    this.options = options;
    this.listener = listener;
    this.ticker = ticker;
    this.faults =
        new FaultLog(
            log, "oversized messages on " + options.subject(), FaultLog.DEFAULT_INTERVAL, ticker);
    this.connector =
        new Connector(
            options.server(),
            "kv-events-" + (options.isDurable() ? options.durable() : "subscriber"),
            0,
            new Connector.Events() {
              @Override
              public void connected(Connection connection, boolean reconnect) {
                onConnected(connection, reconnect);
              }

              @Override
              public void disconnected() {
                synchronized (listenerLock) {
                  listener.disconnected();
                }
              }
            });
  }

  /**
   * Starts connecting (retried until it succeeds) and subscribing; returns at once.
   *
   * @param ticker where the time is read (for {@link Stats#millisSinceLastMessage()})
   */
  public static NatsEventSubscriber start(Options options, Listener listener, Ticker ticker) {
    NatsEventSubscriber subscriber =
        new NatsEventSubscriber(
            Objects.requireNonNull(options, "options"),
            Objects.requireNonNull(listener, "listener"),
            Objects.requireNonNull(ticker, "ticker"));
    subscriber.connector.start();
    return subscriber;
  }

  public Options options() {
    return options;
  }

  /** True once the subscription (or durable consumer) is in place. */
  public boolean isSubscribed() {
    return subscribed;
  }

  public Stats stats() {
    String state;
    if (closed) {
      state = "closed";
    } else if (!subscribed) {
      state = "connecting";
    } else {
      state = connector.isConnected() ? "following" : "disconnected";
    }
    return new Stats(
        state,
        messages.get(),
        connector.disconnects(),
        connector.reconnects(),
        duplicates.get(),
        listenerErrors.get(),
        setupFailures.get(),
        oversized.get(),
        lastMessage.millisSince(ticker.nanos()));
  }

  /**
   * Subscribes on the first connect. jnats re-sends core subscriptions after a reconnect by itself,
   * so later connects only subscribe if the first attempt failed. A durable consumer is set up
   * again after every reconnect: jnats's pull consumer otherwise waits for its missed heartbeats
   * (tens of seconds) before it pulls from the restarted server, and setting up again also
   * re-creates a stream the server lost (one without a store dir).
   */
  private void onConnected(Connection connection, boolean reconnect) {
    synchronized (this) {
      if (reconnect && subscribed && options.isDurable() && !closed) {
        consumer.stop();
        subscribed = false;
      }
      if (!subscribed && !closed) {
        try {
          subscribe(connection);
          subscribed = true;
          inPlace(connection);
        } catch (IOException | JetStreamApiException | RuntimeException e) {
          setupFailures.incrementAndGet();
          log.error(
              "cannot subscribe to {} on {} (retried on the next reconnect)",
              options.subject(),
              options.server(),
              e);
        }
      }
    }
    synchronized (listenerLock) {
      listener.connected(reconnect);
    }
  }

  /**
   * Waits until the server holds the new subscription (a round trip: it handles a connection's
   * messages in order), so a message published from anywhere after {@link #awaitSubscribed} returns
   * reaches this subscriber; then lets {@link #awaitSubscribed} return.
   */
  private void inPlace(Connection connection) {
    try {
      connection.flush(SUBSCRIBE_ROUND_TRIP);
    } catch (TimeoutException e) {
      log.debug("no round trip to {} after subscribing", options.server(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    firstSubscribed.countDown();
  }

  /**
   * Waits up to {@code timeout} for the first subscription to be in place on the server: true when
   * it is, false when the time ran out (no server yet: this subscriber keeps trying). For a caller
   * that should not report ready before it can hear the first message; blocks, so never on an event
   * loop.
   */
  public boolean awaitSubscribed(Duration timeout) throws InterruptedException {
    return firstSubscribed.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  private void subscribe(Connection connection) throws IOException, JetStreamApiException {
    if (!options.isDurable()) {
      dispatcher = connection.createDispatcher(m -> deliver(m, false));
      dispatcher.subscribe(options.subject());
      return;
    }
    StreamInfo info =
        JetStreams.ensureStream(
            connection.jetStreamManagement(), options.subject(), options.streamMaxAge());
    String stream = info.getConfiguration().getName();
    synchronized (listenerLock) {
      if (!info.getCreateTime().equals(streamCreated)) {
        streamCreated = info.getCreateTime();
        deliveredStreamSeq = 0;
      }
    }
    ConsumerConfiguration config =
        ConsumerConfiguration.builder()
            .durable(options.durable())
            .filterSubject(options.subject())
            .ackPolicy(AckPolicy.Explicit)
            .ackWait(ACK_WAIT)
            .deliverPolicy(DeliverPolicy.All)
            .build();
    consumer =
        connection
            .getStreamContext(stream)
            .createOrUpdateConsumer(config)
            .consume(m -> deliver(m, true));
  }

  private void deliver(Message message, boolean ack) {
    byte[] payload = message.getData();
    if (payload != null && payload.length > options.maxMessageBytes()) {
      oversized.incrementAndGet();
      faults.fault(
          "a payload of "
              + payload.length
              + " bytes, above --kv-events-max-message-bytes ("
              + options.maxMessageBytes()
              + "); dropped");
      if (ack) {
        message.term(); // it will not get any smaller
      }
      return;
    }
    boolean ok;
    synchronized (listenerLock) {
      if (ack && isRedelivery(message)) {
        duplicates.incrementAndGet();
        message.ack();
        return;
      }
      messages.incrementAndGet();
      lastMessage.at(ticker.nanos());
      try {
        listener.message(payload == null ? new byte[0] : payload);
        ok = true;
      } catch (RuntimeException e) {
        listenerErrors.incrementAndGet();
        log.warn("KV event listener failed on a message from {}", options.subject(), e);
        ok = false;
      }
    }
    if (ack) {
      if (ok) {
        message.ack();
      } else {
        message.term();
      }
    }
  }

  /** Durable mode: true when this stream sequence was handed to the listener already. */
  private boolean isRedelivery(Message message) {
    long seq = message.metaData().streamSequence();
    if (seq <= deliveredStreamSeq) {
      return true;
    }
    deliveredStreamSeq = seq;
    return false;
  }

  /**
   * Stops delivery and closes the connection. A durable consumer stays on the server, so the next
   * subscriber with its name resumes where this one stopped; messages delivered but not yet acked
   * are redelivered to it.
   */
  @Override
  public void close() {
    synchronized (this) {
      closed = true;
    }
    if (consumer != null) {
      consumer.stop();
    }
    connector.close();
  }
}
