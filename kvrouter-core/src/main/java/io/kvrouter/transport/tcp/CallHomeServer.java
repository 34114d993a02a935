package io.kvrouter.transport.tcp;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.ResponseStreamKind;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.InferenceEngine;
import io.kvrouter.transport.JsonEndpoint;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.util.Map;
import java.util.Set;

/**
 * The worker's half of the call-home path for requests that arrive by another carrier (NATS): each
 * request's TwoPart envelope, as a TCP request frame would carry it, is checked and served, its
 * response going back (over a call-home connection or a {@code tcp_response_mux_v1} stream) to the
 * frontend named in its control message (Dynamo's {@code PushEndpoint} hands a NATS message's
 * payload to the same {@code handle_payload} as the TCP server does; docs/interop.md §10.8).
 */
public final class CallHomeServer {
  private final PlaneClient callHomeClient;
  private final MuxClientPool muxPool;
  private final ServedCalls served;

  private CallHomeServer(PlaneClient callHomeClient, MuxClientPool muxPool, ServedCalls served) {
    this.callHomeClient = callHomeClient;
    this.muxPool = muxPool;
    this.served = served;
  }

  /**
   * Serves {@code engines} and {@code endpoints} by path.
   *
   * @throws IllegalArgumentException if a path is both an engine and an endpoint
   */
  public static CallHomeServer create(
      Vertx vertx,
      Map<String, InferenceEngine> engines,
      Map<String, JsonEndpoint> endpoints,
      TcpConfig config) {
    TcpTlsOptions.load(vertx, config);
    PlaneClient client = PlaneClient.create(vertx, config);
    MuxClientPool muxPool =
        new MuxClientPool(
            vertx, client, config.maxMessageSize(), MuxClientPool.POOL_SIZE, Ticker.SYSTEM);
    try {
      return new CallHomeServer(
          client,
          muxPool,
          new ServedCalls(
              vertx,
              engines,
              endpoints,
              client,
              muxPool,
              Set.of(ResponseStreamKind.values()),
              config));
    } catch (IllegalArgumentException e) {
      client.close();
      throw e;
    }
  }

  /** Every path served. */
  public Set<String> paths() {
    return served.paths();
  }

  /**
   * Serves the request {@code envelope} sent to {@code path}: calls its frontend back and streams
   * the outputs or the answer. Returns {@code null} when the request was taken, else why it was not
   * (unknown path, malformed envelope, unsupported control message). Safe from any thread.
   */
  public String serve(String path, byte[] envelope) {
    return serve(path, Buffer.buffer(envelope));
  }

  /** {@link #serve(String, byte[])} for an envelope already in a buffer. */
  public String serve(String path, Buffer envelope) {
    ServedCalls.Accepted call;
    try {
      call = served.accept(path, envelope);
    } catch (ServedCalls.Refused refused) {
      return refused.getMessage();
    }
    served.start(call);
    return null;
  }

  /** Closes the call-home client and the mux connections: streams still running end. */
  public Future<Void> close() {
    return muxPool.close().compose(v -> callHomeClient.close());
  }
}
