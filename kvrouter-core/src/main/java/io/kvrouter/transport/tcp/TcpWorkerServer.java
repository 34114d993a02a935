package io.kvrouter.transport.tcp;

import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.InferenceEngine;
import io.kvrouter.transport.JsonEndpoint;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The worker side of Dynamo's TCP request plane (see the package Javadoc for the pinned version):
 * accepts request frames, acknowledges each, and streams every accepted request's outputs (or its
 * {@link JsonEndpoint}'s answer) back over a call-home connection to the frontend.
 */
final class TcpWorkerServer implements WorkerServer {
  private final NetServer server;
  private final NetClient callHomeClient;
  private final AtomicInteger acceptedConnections = new AtomicInteger();

  private TcpWorkerServer(NetServer server, NetClient callHomeClient) {
    this.server = server;
    this.callHomeClient = callHomeClient;
  }

  static Future<WorkerServer> start(
      Vertx vertx,
      String host,
      int port,
      Map<String, InferenceEngine> engines,
      Map<String, JsonEndpoint> endpoints,
      TcpConfig config) {
    NetClient callHomeClient = callHomeClient(vertx, config);
    ServedCalls served;
    try {
      served = new ServedCalls(vertx, engines, endpoints, callHomeClient, config);
    } catch (IllegalArgumentException e) {
      callHomeClient.close();
      throw e;
    }
    NetServer server = vertx.createNetServer(new NetServerOptions().setTcpNoDelay(true));
    TcpWorkerServer worker = new TcpWorkerServer(server, callHomeClient);
    server.connectHandler(
        socket -> {
          worker.acceptedConnections.incrementAndGet();
          new WorkerConnection(socket, served, config).start();
        });
    return server
        .listen(port, host)
        .<WorkerServer>map(bound -> worker)
        .onFailure(failure -> callHomeClient.close());
  }

  /** The client a worker calls frontends back with. */
  static NetClient callHomeClient(Vertx vertx, TcpConfig config) {
    return vertx.createNetClient(
        new NetClientOptions()
            .setTcpNoDelay(true)
            .setConnectTimeout(
                (int) Math.min(Integer.MAX_VALUE, config.connectTimeout().toMillis())));
  }

  @Override
  public int port() {
    return server.actualPort();
  }

  /** How many request-plane connections frontends have opened so far. */
  int acceptedConnections() {
    return acceptedConnections.get();
  }

  @Override
  public Future<Void> close() {
    return Future.join(server.close(), callHomeClient.close()).mapEmpty();
  }
}
