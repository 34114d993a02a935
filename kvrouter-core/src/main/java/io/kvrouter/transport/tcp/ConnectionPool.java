package io.kvrouter.transport.tcp;

import io.kvrouter.config.TcpConfig;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;

/**
 * The connections to one worker address, at most {@code poolSize}. A request goes to the least
 * loaded connection; a new one opens only while every existing connection has requests awaiting
 * their ack, so an idle worker costs one connection and a busy one pipelines over up to {@code
 * poolSize}. Confined to the event loop of the request plane's context.
 */
final class ConnectionPool {
  private final Vertx vertx;
  private final PlaneClient client;
  private final HostAndPort address;
  private final TcpConfig config;
  private final List<RequestConnection> connections = new ArrayList<>();

  ConnectionPool(Vertx vertx, PlaneClient client, HostAndPort address, TcpConfig config) {
    this.vertx = vertx;
    this.client = client;
    this.address = address;
    this.config = config;
  }

  /** The connection the next request should use, opening one if the pool may grow. */
  RequestConnection pick() {
    // A connection whose connect failed at once may have closed before it was added; drop it.
    connections.removeIf(RequestConnection::isClosed);
    RequestConnection best = null;
    for (RequestConnection connection : connections) {
      if (best == null || connection.load() < best.load()) {
        best = connection;
      }
    }
    if (best == null || (best.load() > 0 && connections.size() < config.poolSize())) {
      best = RequestConnection.open(vertx, client, address, config, connections::remove);
      connections.add(best);
    }
    return best;
  }

  void close() {
    List.copyOf(connections).forEach(RequestConnection::close);
  }
}
