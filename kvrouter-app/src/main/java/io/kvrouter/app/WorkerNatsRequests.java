package io.kvrouter.app;

import io.kvrouter.config.WorkerConfig;
import io.kvrouter.config.WorkerEventsConfig;
import io.kvrouter.events.nats.NatsConnection;
import io.kvrouter.protocol.InferenceEngine;
import io.kvrouter.transport.JsonEndpoint;
import io.kvrouter.transport.nats.NatsWorkerServer;
import io.kvrouter.transport.tcp.CallHomeServer;
import io.nats.client.Connection;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * A worker's NATS request plane ({@code --request-plane nats}): its endpoints on the NATS subjects
 * of its namespace, component and worker id ({@code --worker-id}, in hex), as a Dynamo worker with
 * {@code DYN_REQUEST_PLANE=nats} serves them; the responses go back over TCP call-home.
 */
final class WorkerNatsRequests implements AutoCloseable {
  /** How long the worker waits for NATS at start before it gives up. */
  static final Duration CONNECT_LIMIT = Duration.ofSeconds(30);

  private final NatsConnection nats;
  private final NatsWorkerServer server;

  private WorkerNatsRequests(NatsConnection nats, NatsWorkerServer server) {
    this.nats = nats;
    this.server = server;
  }

  /**
   * Connects to NATS (waiting at most {@link #CONNECT_LIMIT}) and subscribes every engine and
   * endpoint.
   *
   * @throws TimeoutException if NATS cannot be reached in time
   */
  static WorkerNatsRequests start(
      Vertx vertx,
      WorkerConfig config,
      Map<String, InferenceEngine> engines,
      Map<String, JsonEndpoint> endpoints)
      throws TimeoutException, InterruptedException {
    WorkerEventsConfig identity = config.events();
    NatsConnection nats = NatsConnection.start(identity.natsServer(), "kvrouter-worker-requests");
    try {
      Connection connection = awaitConnection(nats, identity.natsServer().toString());
      CallHomeServer callHome = CallHomeServer.create(vertx, engines, endpoints, config.tcp());
      NatsWorkerServer server =
          NatsWorkerServer.start(
              connection,
              identity.namespace(),
              identity.component(),
              Long.parseUnsignedLong(identity.workerId()),
              callHome);
      return new WorkerNatsRequests(nats, server);
    } catch (TimeoutException | InterruptedException | RuntimeException e) {
      nats.close();
      throw e;
    }
  }

  private static Connection awaitConnection(NatsConnection nats, String url)
      throws TimeoutException, InterruptedException {
    try {
      return nats.awaitFirst(CONNECT_LIMIT);
    } catch (TimeoutException e) {
      throw new TimeoutException(
          "cannot reach NATS at " + url + " within " + CONNECT_LIMIT.toSeconds() + " s");
    }
  }

  /** The subject of each endpoint, by endpoint name. */
  Map<String, String> subjects() {
    return server.subjectsByEndpoint();
  }

  @Override
  public void close() {
    server.close();
    nats.close();
  }
}
