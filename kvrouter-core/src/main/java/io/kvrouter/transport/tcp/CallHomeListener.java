package io.kvrouter.transport.tcp;

import io.kvrouter.common.Ports;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.WorkerEndpoint;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The frontend's call-home listener ({@code DYN_TCP_RESPONSE_STREAM_HOST/PORT}): workers dial it to
 * stream responses back. It keeps the calls waiting for a worker to call home, by subject. The same
 * port takes {@code tcp_response_mux_v1} connections ({@link FrontendMuxConnection}), whose streams
 * claim their calls by stream id, which is the call's subject.
 *
 * <p>Every response stream arrives on its own connection, so the listener is one server per event
 * loop sharing the port: Vert.x spreads accepted connections over them, and response streams are
 * decoded on every core instead of one.
 */
final class CallHomeListener {
  private final Vertx vertx;
  private final TcpConfig config;
  private final List<NetServer> servers = new CopyOnWriteArrayList<>();
  private final List<String> deployments = new CopyOnWriteArrayList<>();
  private final Future<NetServer> listening;
  private final ConcurrentMap<String, PendingCall<?>> waiting = new ConcurrentHashMap<>();
  private final UUID serverId = UUID.randomUUID();
  private final int maxMessageSize;

  CallHomeListener(Vertx vertx, TcpConfig config, int eventLoops) {
    this.config = config;
    this.vertx = vertx;
    this.maxMessageSize = config.maxMessageSize();
    // One server instance per event loop, all on one explicit port so Vert.x shares it.
    Future<String> deployed;
    try {
      int port = Ports.resolve(config.responseStreamHost(), config.responseStreamPort());
      deployed = deploy(vertx, config, port, Math.max(1, eventLoops));
    } catch (RuntimeException e) {
      deployed = Future.failedFuture(e);
    }
    this.listening = deployed.map(id -> servers.get(0));
  }

  private Future<String> deploy(Vertx vertx, TcpConfig config, int port, int instances) {
    return vertx
        .deployVerticle(
            () ->
                new VerticleBase() {
                  @Override
                  public Future<?> start() {
                    NetServer server = vertx.createNetServer(TcpTlsOptions.server(config));
                    server.connectHandler(
                        socket ->
                            new CallHomeConnection(
                                    vertx, socket, CallHomeListener.this, config.maxMessageSize())
                                .start());
                    servers.add(server);
                    return server.listen(port, config.responseStreamHost());
                  }
                },
            new DeploymentOptions().setInstances(instances))
        .onSuccess(deployments::add);
  }

  /** Completes once the listener is bound; fails if it cannot bind. */
  Future<NetServer> listening() {
    return listening;
  }

  /**
   * Completes once the listener is bound. A listener that cannot bind is a local misconfiguration,
   * not a worker fault, so it fails with {@link IllegalStateException} naming the settings.
   */
  Future<Void> ready() {
    return listening.transform(
        ar ->
            ar.succeeded()
                ? Future.succeededFuture()
                : Future.failedFuture(bindFailure(ar.cause())));
  }

  IllegalStateException bindFailure(Throwable cause) {
    return new IllegalStateException(
        "the response-stream listener cannot bind "
            + config.responseStreamHost()
            + ":"
            + config.responseStreamPort()
            + " (--tcp-response-stream-host/--tcp-response-stream-port): "
            + cause.getMessage(),
        cause);
  }

  /** The bound port; only meaningful once {@link #listening()} has succeeded. */
  int port() {
    return servers.get(0).actualPort();
  }

  /**
   * Registers a new call under a fresh subject for a worker to claim when it calls home; {@code
   * readers} makes what reads its stream.
   */
  <R extends CallHomeReader> PendingCall<R> register(
      WorkerEndpoint worker, String requestId, PendingCall.ReaderFactory<R> readers) {
    String subject = UUID.randomUUID().toString();
    PendingCall<R> call =
        new PendingCall<>(subject, worker, requestId, readers, c -> waiting.remove(c.subject(), c));
    waiting.put(subject, call);
    return call;
  }

  /**
   * This frontend's identity in {@code tcp_response_mux_v1} connection info: workers pool their mux
   * connections per frontend, and a connection whose handshake names another is refused.
   */
  UUID serverId() {
    return serverId;
  }

  /**
   * Takes over a connection whose handshake is a response-mux one; throws {@link TcpCodecException}
   * when its version or frontend id is not this listener's (Dynamo rejects an incompatible version
   * without a fallback).
   */
  FrontendMuxConnection acceptMux(NetSocket socket, MuxHandshake handshake) {
    if (!MuxHandshake.KIND.equals(handshake.kind())) {
      throw new TcpCodecException("unsupported connection handshake kind " + handshake.kind());
    }
    if (handshake.version() != MuxHandshake.VERSION) {
      throw new TcpCodecException(
          "unsupported response mux version "
              + handshake.version()
              + "; expected "
              + MuxHandshake.VERSION);
    }
    if (!serverId.equals(handshake.frontendServerId())) {
      throw new TcpCodecException(
          "response mux handshake for frontend " + handshake.frontendServerId() + ", not this one");
    }
    return new FrontendMuxConnection(vertx, socket, this, maxMessageSize);
  }

  /** Takes the call a handshake names, or {@code null} if there is none (late or unknown). */
  PendingCall<?> claim(String subject) {
    return waiting.remove(subject);
  }

  /** Stops listening, closes every call-home connection and fails the calls still waiting. */
  Future<Void> close() {
    return Future.join(deployments.stream().map(vertx::undeploy).toList())
        .<Void>mapEmpty()
        .onComplete(
            done ->
                List.copyOf(waiting.values()).forEach(c -> c.fail("request plane closed", null)));
  }
}
