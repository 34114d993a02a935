package io.kvrouter.transport.tcp;

import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.WorkerEndpoint;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The frontend's call-home listener ({@code DYN_TCP_RESPONSE_STREAM_HOST/PORT}): workers dial it to
 * stream responses back. It keeps the calls waiting for a worker to call home, by subject.
 */
final class CallHomeListener {
  private final NetServer server;
  private final Future<NetServer> listening;
  private final ConcurrentMap<String, PendingCall> waiting = new ConcurrentHashMap<>();

  CallHomeListener(Vertx vertx, TcpConfig config) {
    this.server = vertx.createNetServer(new NetServerOptions().setTcpNoDelay(true));
    server.connectHandler(
        socket -> new CallHomeConnection(vertx, socket, this, config.maxMessageSize()).start());
    this.listening = server.listen(config.responseStreamPort(), config.responseStreamHost());
  }

  /** Completes once the listener is bound; fails if it cannot bind. */
  Future<NetServer> listening() {
    return listening;
  }

  /** The bound port; only meaningful once {@link #listening()} has succeeded. */
  int port() {
    return server.actualPort();
  }

  /** Registers a new call under a fresh subject for a worker to claim when it calls home. */
  PendingCall register(WorkerEndpoint worker, String requestId) {
    String subject = UUID.randomUUID().toString();
    PendingCall call =
        new PendingCall(subject, worker, requestId, c -> waiting.remove(c.subject(), c));
    waiting.put(subject, call);
    return call;
  }

  /** Takes the call a handshake names, or {@code null} if there is none (late or unknown). */
  PendingCall claim(String subject) {
    return waiting.remove(subject);
  }

  /** Stops listening, closes every call-home connection and fails the calls still waiting. */
  Future<Void> close() {
    return server
        .close()
        .onComplete(
            done ->
                List.copyOf(waiting.values()).forEach(c -> c.fail("request plane closed", null)));
  }
}
