package io.kvrouter.events.nats;

import io.kvrouter.config.NatsServer;
import io.nats.client.Connection;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A NATS connection for whatever else talks to NATS (the NATS request plane): connected in the
 * background until the server is up, then reconnected by jnats forever ({@link Connector}). While
 * it is disconnected nothing is buffered: a request fails at once, so the router can try another
 * worker instead of holding the request in a reconnect buffer.
 */
public final class NatsConnection implements AutoCloseable {
  private final Connector connector;
  private final CompletableFuture<Connection> first;

  private NatsConnection(Connector connector, CompletableFuture<Connection> first) {
    this.connector = connector;
    this.first = first;
  }

  /** Starts connecting to {@code server}; {@code name} names the connection on the server. */
  public static NatsConnection start(NatsServer server, String name) {
    CompletableFuture<Connection> first = new CompletableFuture<>();
    Connector connector =
        new Connector(
            server,
            name,
            0,
            new Connector.Events() {
              @Override
              public void connected(Connection connection, boolean reconnect) {
                first.complete(connection);
              }

              @Override
              public void disconnected() {}
            });
    connector.start();
    return new NatsConnection(connector, first);
  }

  /**
   * The connection, waiting up to {@code timeout} for the first connect; blocks, so never on an
   * event loop.
   *
   * @throws TimeoutException if no connect succeeded in time
   */
  public Connection awaitFirst(Duration timeout) throws TimeoutException, InterruptedException {
    try {
      return first.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause()); // never completed exceptionally
    }
  }

  /** The connection once the first connect succeeded, else {@code null}. */
  public Connection current() {
    return connector.connection();
  }

  @Override
  public void close() {
    connector.close();
  }
}
