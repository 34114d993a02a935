package io.kvrouter.transport.tcp;

import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetSocket;
import java.util.Map;

/**
 * One health probe of a worker's request plane: a round trip that only a running worker process
 * completes. A TCP connect proves nothing about the process: the kernel completes the handshake
 * from the listen backlog even while the process is stopped (SIGSTOP) or wedged. So the probe opens
 * a fresh connection, writes one request frame for {@link #PATH}, a path no worker serves, and
 * waits for the worker's acknowledgement.
 *
 * <p>Why this and not Dynamo's own health checks (docs/interop.md §7): Dynamo's read loop answers
 * every frame with one ack, an unknown path with a rejection ({@code Unknown endpoint: PATH} or
 * {@code Server unavailable: unknown endpoint PATH}, by release) and no call-home, before it looks
 * at the payload ({@code lib/runtime/src/pipeline/network/ingress/shared_tcp_endpoint.rs}, {@code
 * read_loop}; the simulated worker's {@link WorkerConnection} does the same). Any ack, rejection
 * included, proves the process reads and answers, and the probe costs the worker nothing but that
 * ack (and, in Dynamo, a warning in its log). Dynamo's canary ({@code
 * lib/runtime/src/health_check.rs}) runs inside the worker, sending its {@code
 * health_check_payload} to its own engine through the local endpoint registry, and its result is
 * only visible on the worker's system status server ({@code /health}, {@code DYN_SYSTEM_PORT}),
 * whose address a router given {@code --worker id=,address=} does not know. What the ack does not
 * prove is that the engine generates; a worker that acks but stops streaming is caught by the
 * router's stream idle timeout instead.
 *
 * <p>A connection that cannot open (within the connect timeout), closes before the ack, or gives no
 * ack within the request timeout ({@code --tcp-request-timeout}) fails the probe.
 */
final class HealthProbe {
  /** The path probed; no worker registers it. */
  static final String PATH = "kvrouter_health_probe";

  private final Vertx vertx;
  private final TcpConfig config;
  private final WorkerEndpoint worker;
  private final Promise<Void> result = Promise.promise();

  private HealthProbe(Vertx vertx, TcpConfig config, WorkerEndpoint worker) {
    this.vertx = vertx;
    this.config = config;
    this.worker = worker;
  }

  /** Probes {@code worker}: succeeds once it acknowledges the probe frame. */
  static Future<Void> run(
      Vertx vertx, PlaneClient client, TcpConfig config, WorkerEndpoint worker) {
    HealthProbe probe = new HealthProbe(vertx, config, worker);
    client
        .connect(worker.port(), worker.host())
        .onComplete(
            ar -> {
              if (ar.succeeded()) {
                probe.opened(ar.result());
              } else {
                probe.fail("cannot connect to " + address(worker) + ": " + ar.cause().getMessage());
              }
            });
    return probe.result.future();
  }

  /** The probe frame: the path in the worker's namespace, no headers beyond {@code {}}, no body. */
  static Buffer frame(WorkerEndpoint worker, int maxMessageSize) {
    return RequestFrameEncoder.encode(
        new RequestFrame(worker.sibling(PATH).path(), Map.of(), Buffer.buffer()), maxMessageSize);
  }

  private void opened(NetSocket socket) {
    long timeoutMs = config.requestTimeout().toMillis();
    long timer =
        vertx.setTimer(
            Math.max(1, timeoutMs),
            id -> {
              fail(
                  "no answer to a health probe from "
                      + address(worker)
                      + " within "
                      + timeoutMs
                      + " ms (--tcp-request-timeout)");
              socket.close();
            });
    result.future().onComplete(done -> vertx.cancelTimer(timer));
    AckDecoder decoder = new AckDecoder(config.maxMessageSize());
    socket.handler(
        chunk -> {
          try {
            decoder.decode(
                chunk,
                ack -> {
                  result.tryComplete();
                  socket.close();
                });
          } catch (TcpCodecException e) {
            fail(
                "malformed answer to a health probe from "
                    + address(worker)
                    + ": "
                    + e.getMessage());
            socket.close();
          }
        });
    socket.closeHandler(
        v ->
            fail("connection to " + address(worker) + " closed before it answered a health probe"));
    socket.write(frame(worker, config.maxMessageSize()));
  }

  private void fail(String message) {
    result.tryFail(WorkerUnavailableException.unreachable(worker.workerId(), message, null));
  }

  private static String address(WorkerEndpoint worker) {
    return new HostAndPort(worker.host(), worker.port()).toString();
  }
}
