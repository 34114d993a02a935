package io.kvrouter.transport.tcp;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.ResponseStreamKind;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.InferenceEngine;
import io.kvrouter.transport.JsonEndpoint;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetServer;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The worker side of Dynamo's TCP request plane (see the package Javadoc for the pinned version):
 * accepts request frames, acknowledges each, and streams every accepted request's outputs (or its
 * {@link JsonEndpoint}'s answer) back to the frontend over a call-home connection or a stream of
 * its pooled {@code tcp_response_mux_v1} connections, as the request says and the worker accepts.
 */
final class TcpWorkerServer implements WorkerServer {
  private final NetServer server;
  private final PlaneClient callHomeClient;
  private final MuxClientPool muxPool;
  private final ServedCalls served;
  private final AtomicInteger acceptedConnections = new AtomicInteger();

  private TcpWorkerServer(
      NetServer server, PlaneClient callHomeClient, MuxClientPool muxPool, ServedCalls served) {
    this.server = server;
    this.callHomeClient = callHomeClient;
    this.muxPool = muxPool;
    this.served = served;
  }

  static Future<WorkerServer> start(
      Vertx vertx,
      String host,
      int port,
      Map<String, InferenceEngine> engines,
      Map<String, JsonEndpoint> endpoints,
      TcpConfig config,
      Set<ResponseStreamKind> accepted) {
    return start(vertx, host, port, engines, endpoints, config, accepted, MuxClientPool.POOL_SIZE);
  }

  /** As above, with at most {@code muxPoolSize} mux connections per frontend (tests pin it). */
  static Future<WorkerServer> start(
      Vertx vertx,
      String host,
      int port,
      Map<String, InferenceEngine> engines,
      Map<String, JsonEndpoint> endpoints,
      TcpConfig config,
      Set<ResponseStreamKind> accepted,
      int muxPoolSize) {
    TcpTlsOptions.warnIfOneSided(config.tls());
    TcpTlsOptions.load(vertx, config);
    PlaneClient callHomeClient = PlaneClient.create(vertx, config);
    MuxClientPool muxPool =
        new MuxClientPool(
            vertx, callHomeClient, config.maxMessageSize(), muxPoolSize, Ticker.SYSTEM);
    ServedCalls served;
    try {
      served =
          new ServedCalls(vertx, engines, endpoints, callHomeClient, muxPool, accepted, config);
    } catch (IllegalArgumentException e) {
      callHomeClient.close();
      throw e;
    }
    NetServer server = vertx.createNetServer(TcpTlsOptions.server(config));
    TcpWorkerServer worker = new TcpWorkerServer(server, callHomeClient, muxPool, served);
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

  @Override
  public int port() {
    return server.actualPort();
  }

  /** How many request-plane connections frontends have opened so far. */
  int acceptedConnections() {
    return acceptedConnections.get();
  }

  @Override
  public int callHomeConnectionsOpened() {
    return served.callHomesOpened();
  }

  @Override
  public int muxConnectionsOpened() {
    return muxPool.connectionsOpened();
  }

  /** Drops every mux connection, as a network fault would: the streams on them break. */
  Future<Void> dropMuxConnections() {
    return muxPool.dropConnections();
  }

  @Override
  public Future<Void> close() {
    return Future.join(server.close(), muxPool.close())
        .compose(v -> callHomeClient.close())
        .mapEmpty();
  }
}
