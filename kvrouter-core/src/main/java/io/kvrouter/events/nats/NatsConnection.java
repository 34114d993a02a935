package io.kvrouter.events.nats;

import io.nats.client.Connection;

/**
 * A NATS connection for whatever else talks to NATS (the NATS request plane): connected in the
 * background until the server is up, then reconnected by jnats forever ({@link Connector}). While
 * it is disconnected nothing is buffered: a request fails at once, so the router can try another
 * worker instead of holding the request in a reconnect buffer.
 */
public final class NatsConnection implements AutoCloseable {
  private final Connector connector;

  private NatsConnection(Connector connector) {
    this.connector = connector;
  }

  /** Starts connecting to {@code url}; {@code name} names the connection on the server. */
  public static NatsConnection start(String url, String name) {
    Connector connector =
        new Connector(
            url,
            name,
            0,
            new Connector.Events() {
              @Override
              public void connected(Connection connection, boolean reconnect) {}

              @Override
              public void disconnected() {}
            });
    connector.start();
    return new NatsConnection(connector);
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
