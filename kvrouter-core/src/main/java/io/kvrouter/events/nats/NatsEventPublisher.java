package io.kvrouter.events.nats;

import io.kvrouter.config.NatsServer;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes opaque event payloads (a simulated worker's KV events, already encoded) on NATS
 * subjects, and keeps doing so across server restarts. The payload format is the caller's business:
 * Dynamo's {@code RouterEvent} JSON on {@link NatsSubjects#kvEvents}.
 *
 * <p>What a publish survives, and what it does not:
 *
 * <ul>
 *   <li>connected: the message goes to the server; core NATS delivers it to the subscribers
 *       interested at that moment (and a JetStream stream on the subject stores it);
 *   <li>disconnected (server down, reconnecting forever every 250 ms): jnats holds messages in a
 *       reconnect buffer of {@link #DEFAULT_RECONNECT_BUFFER_BYTES} (configurable) and sends them
 *       after the reconnect. Core subscribers that have not re-subscribed yet at that moment still
 *       miss them;
 *   <li>the buffer is full: the publish is <em>dropped</em> and counted in {@link Stats#dropped()}
 *       — the newest events are the ones lost, so the router must treat the worker's feed as having
 *       a gap (it will, after its own disconnect) and recover;
 *   <li>before the first connect succeeds there is no buffer at all: publishes are dropped and
 *       counted;
 *   <li>messages written to the socket just before the server died may be lost without any error
 *       (TCP accepted them, the server never read them).
 * </ul>
 *
 * <p>{@link #publish} is thread-safe and never blocks on the network.
 */
public final class NatsEventPublisher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NatsEventPublisher.class);

  /**
   * jnats's default, 8 MiB: about 20,000 KV events of a few hundred bytes, i.e. minutes of a busy
   * worker's events, bounded so an outage cannot grow the worker's heap without limit.
   */
  public static final long DEFAULT_RECONNECT_BUFFER_BYTES = 8L * 1024 * 1024;

  private static final Duration CLOSE_FLUSH = Duration.ofSeconds(2);

  /**
   * @param connected whether the connection is up now
   * @param published messages handed to jnats (sent, or buffered while disconnected)
   * @param dropped messages lost because there was no connection yet or the reconnect buffer was
   *     full
   */
  public record Stats(
      boolean connected, long published, long dropped, long disconnects, long reconnects) {}

  private final Connector connector;

  /** Subjects kept in a JetStream stream, set up on every connect. */
  private final Set<String> streams = new LinkedHashSet<>();

  private final AtomicLong published = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private volatile boolean closed;

  private NatsEventPublisher(NatsServer server, String name, long reconnectBufferBytes) {
    this.connector =
        new Connector(
            server,
            name,
            reconnectBufferBytes,
            new Connector.Events() {
              @Override
              public void connected(Connection connection, boolean reconnect) {
                onConnected(connection);
              }

              @Override
              public void disconnected() {}
            });
  }

  /** Starts connecting to {@code server} (retried until it succeeds) and returns at once. */
  public static NatsEventPublisher start(NatsServer server) {
    return start(server, "kv-events-publisher", DEFAULT_RECONNECT_BUFFER_BYTES);
  }

  /**
   * @param name the connection name the server shows (e.g. the worker id)
   * @param reconnectBufferBytes what may be held while disconnected; 0 drops every publish made
   *     while disconnected
   */
  public static NatsEventPublisher start(
      NatsServer server, String name, long reconnectBufferBytes) {
    Objects.requireNonNull(server, "server");
    if (reconnectBufferBytes < 0) {
      throw new IllegalArgumentException("reconnectBufferBytes must be >= 0");
    }
    NatsEventPublisher publisher = new NatsEventPublisher(server, name, reconnectBufferBytes);
    publisher.connector.start();
    return publisher;
  }

  /**
   * Publishes {@code payload} on {@code subject}; returns false if it was dropped (see the class
   * comment). Ignored once closed.
   */
  public boolean publish(String subject, byte[] payload) {
    Objects.requireNonNull(subject, "subject");
    Objects.requireNonNull(payload, "payload");
    if (closed) {
      return false;
    }
    Connection connection = connector.connection();
    if (connection == null) {
      dropped.incrementAndGet();
      return false;
    }
    try {
      connection.publish(subject, payload);
      published.incrementAndGet();
      return true;
    } catch (IllegalStateException bufferFullOrClosed) {
      dropped.incrementAndGet();
      return false;
    }
  }

  /**
   * Makes sure a JetStream stream stores {@code subject} (Dynamo's {@code --durable-kv-events} on a
   * worker): created now if connected, else on the first connect; a stream that is already there is
   * kept as it is.
   */
  public synchronized void storeInStream(String subject) {
    Objects.requireNonNull(subject, "subject");
    streams.add(subject);
    Connection connection = connector.connection();
    if (connection != null) {
      ensureStream(connection, subject);
    }
  }

  private synchronized void onConnected(Connection connection) {
    streams.forEach(subject -> ensureStream(connection, subject));
  }

  private static void ensureStream(Connection connection, String subject) {
    try {
      JetStreams.ensureStream(
          connection.jetStreamManagement(),
          subject,
          NatsEventSubscriber.Options.DEFAULT_STREAM_MAX_AGE);
    } catch (IOException | JetStreamApiException | RuntimeException e) {
      log.error("cannot set up the JetStream stream for {} (tried again on reconnect)", subject, e);
    }
  }

  public Stats stats() {
    return new Stats(
        connector.isConnected(),
        published.get(),
        dropped.get(),
        connector.disconnects(),
        connector.reconnects());
  }

  /** Waits up to {@code timeout} until everything published so far has reached the server. */
  public boolean flush(Duration timeout) {
    Connection connection = connector.connection();
    if (connection == null) {
      return false;
    }
    try {
      connection.flush(timeout);
      return true;
    } catch (TimeoutException | IllegalStateException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Flushes for up to 2 s, then closes the connection; what is still buffered then is lost. */
  @Override
  public void close() {
    closed = true;
    if (connector.isConnected()) {
      flush(CLOSE_FLUSH);
    }
    connector.close();
  }
}
