package io.kvrouter.events.nats;

import io.kvrouter.config.NatsServer;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One NATS connection that never gives up, shared by the publisher and the subscriber.
 *
 * <p>jnats reconnects an established connection by itself ({@code maxReconnects(-1)}: forever), but
 * its first connect fails if the server is not up yet. Workers and routers may well start before
 * NATS, so a daemon thread retries the first connect until it succeeds or {@link #close()} is
 * called; after that jnats owns reconnection and this class only counts and reports it.
 *
 * <p>While disconnected jnats keeps outgoing messages in a reconnect buffer of {@code
 * reconnectBufferBytes} and sends them after the reconnect; a publish that does not fit throws
 * {@link IllegalStateException} ("Unable to queue any more messages during reconnect").
 */
final class Connector implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Connector.class);
  static final Duration RECONNECT_WAIT = Duration.ofMillis(250);
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

  /** Connection state changes; called on jnats's callback thread or the connect thread. */
  interface Events {
    /** Connected: the first time ({@code reconnect == false}) or again after a loss. */
    void connected(Connection connection, boolean reconnect);

    void disconnected();
  }

  private final NatsServer server;
  private final Options options;
  private final Events events;
  private final Thread thread;
  private final AtomicLong disconnects = new AtomicLong();
  private final AtomicLong reconnects = new AtomicLong();
  private volatile boolean running = true;
  private volatile boolean connected;
  private volatile Connection connection;

  Connector(NatsServer server, String name, long reconnectBufferBytes, Events events) {
    this.server = Objects.requireNonNull(server, "server");
    this.events = Objects.requireNonNull(events, "events");
    this.options =
        NatsOptions.builder(server)
            .connectionName(name)
            .maxReconnects(-1)
            .reconnectWait(RECONNECT_WAIT)
            .connectionTimeout(CONNECT_TIMEOUT)
            .reconnectBufferSize(reconnectBufferBytes)
            .connectionListener(this::onEvent)
            .errorListener(new QuietErrors(server.toString()))
            // requests (the NATS request plane's) fail as what happened: a timeout, or no
            // subscriber on the subject at all, instead of both cancelling the future
            .useTimeoutException()
            .reportNoResponders()
            .build();
    this.thread = new Thread(this::connectLoop, name + "-connect");
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** The connection once the first connect succeeded; null before. */
  Connection connection() {
    return connection;
  }

  boolean isConnected() {
    return connected;
  }

  long disconnects() {
    return disconnects.get();
  }

  long reconnects() {
    return reconnects.get();
  }

  private void connectLoop() {
    boolean warned = false;
    while (running && connection == null) {
      try {
        Connection c = Nats.connect(options);
        synchronized (this) {
          if (!running) {
            c.close();
            return;
          }
          connection = c;
          connected = true;
        }
        events.connected(c, false);
      } catch (IOException e) {
        if (!warned) {
          log.warn(
              "cannot reach NATS at {} ({}); retrying every {} ms",
              server,
              NatsServer.redact(e.getMessage()), // jnats names the URLs as given
              RECONNECT_WAIT.toMillis());
          warned = true;
        }
        sleep(RECONNECT_WAIT);
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        log.error("NATS connection to {} failed: {}", server, NatsServer.redact(e.toString()));
        sleep(RECONNECT_WAIT);
      }
    }
  }

  private void onEvent(Connection c, ConnectionListener.Events type) {
    switch (type) {
      case DISCONNECTED -> {
        if (connected) {
          connected = false;
          disconnects.incrementAndGet();
          log.info("lost NATS at {}; reconnecting", server);
          events.disconnected();
        }
      }
      case RECONNECTED -> {
        connected = true;
        reconnects.incrementAndGet();
        log.info("reconnected to NATS at {}", server);
        events.connected(c, true);
      }
      default -> {
        // CONNECTED is reported by the connect loop, once it holds the connection
      }
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops retrying and closes the connection (jnats flushes what it can on close). */
  @Override
  public void close() {
    Connection c;
    synchronized (this) {
      running = false;
      c = connection;
    }
    thread.interrupt();
    if (c != null) {
      try {
        c.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    connected = false;
  }

  /** jnats's default error listener logs every failed reconnect attempt; one line is enough. */
  private record QuietErrors(String server) implements ErrorListener {
    @Override
    public void errorOccurred(Connection conn, String error) {
      log.warn("NATS {}: {}", server, error);
    }

    @Override
    public void exceptionOccurred(Connection conn, Exception exp) {
      log.debug("NATS {}: {}", server, NatsServer.redact(exp.toString()));
    }
  }
}
