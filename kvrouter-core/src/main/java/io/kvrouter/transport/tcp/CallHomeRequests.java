package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvrouter.config.ResponseStreamKind;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.InvalidRequestException;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerEndpoint;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Requests whose responses come back over the TCP call-home path, whatever carries the request
 * itself to the worker: Dynamo sends the {@code RequestControlMessage} over "TCP, NATS, etc." and
 * the response stream always over the TCP response path, with the same {@code connection_info}
 * (lib/runtime/src/pipeline/network/egress/addressed_router.rs; docs/interop.md §10.8). This class
 * owns the call-home listener and builds each request's TwoPart envelope; a {@link Delivery} (the
 * NATS request plane's, say) takes the envelope to the worker.
 *
 * <pre>
 * envelope = TwoPart(header: RequestControlMessage JSON, body: request in the worker's codec)
 * deliver(envelope)  -> worker accepted    -> call-home limits start (see CallHomeDeadlines)
 *                    -> failed             -> the call fails with the delivery's reason
 * worker calls home: handshake, prologue, items, complete_final, sentinel
 * </pre>
 */
public final class CallHomeRequests {

  /** Takes a request's envelope to its worker. */
  @FunctionalInterface
  public interface Delivery {
    /**
     * Sends {@code envelope} (a TwoPart message) to {@code worker}. The future succeeds once the
     * worker has accepted it, and fails with {@link
     * io.kvrouter.protocol.WorkerUnavailableException} when the worker cannot be reached or refused
     * it, or with {@link io.kvrouter.protocol.InvalidRequestException} when no worker could take it
     * (too large for the transport). It may complete on any thread.
     */
    Future<Void> deliver(WorkerEndpoint worker, String requestId, byte[] envelope);
  }

  private static final Set<String> WILDCARD_HOSTS = Set.of("0.0.0.0", "::", "[::]", "");

  private final Vertx vertx;
  private final TcpConfig config;
  private final CallHomeListener callHome;

  /**
   * The host workers are told to call back when the settings say: the configured advertise host;
   * else the listener's own host when it is bound to one address; else {@code null} (the carrier
   * decides).
   */
  public static String configuredCallHomeHost(TcpConfig config) {
    if (config.responseStreamAdvertiseHost() != null) {
      return config.responseStreamAdvertiseHost();
    }
    if (!WILDCARD_HOSTS.contains(config.responseStreamHost())) {
      return config.responseStreamHost();
    }
    return null;
  }

  private CallHomeRequests(Vertx vertx, TcpConfig config) {
    this.vertx = vertx;
    this.config = config;
    this.callHome = new CallHomeListener(vertx, config, Runtime.getRuntime().availableProcessors());
  }

  /** Binds the call-home listener in the background ({@link #ready()} says when). */
  public static CallHomeRequests start(Vertx vertx, TcpConfig config) {
    return new CallHomeRequests(vertx, config);
  }

  /** Completes once the call-home listener is bound; fails saying why it cannot bind. */
  public Future<Void> ready() {
    return callHome.ready();
  }

  /**
   * The port the call-home listener is bound to: the configured one, or the one the OS chose for 0.
   * Only meaningful once {@link #ready()} has succeeded.
   */
  public int port() {
    return callHome.port();
  }

  /**
   * Sends a generate request through {@code delivery}, telling the worker to call back {@code
   * callHomeHost} on the listener's port; the future gives its response stream once the prologue is
   * good, as {@link io.kvrouter.transport.RequestPlane#send} does.
   */
  public Future<ResponseStream> send(
      WorkerEndpoint worker,
      String requestId,
      PreprocessedRequest request,
      String callHomeHost,
      Delivery delivery) {
    PendingCall<CallHomeStream> call =
        callHome.register(
            worker,
            requestId,
            (context, link, c) -> new CallHomeStream(context, link, c.worker(), c.requestId()));
    TcpRequestPlane.encode(vertx, request, worker.codec())
        .onComplete(
            encoded -> {
              if (encoded.failed()) {
                call.fail(encoded.cause());
              } else {
                dispatch(call, encoded.result(), callHomeHost, delivery);
              }
            });
    return call.future().map(stream -> stream);
  }

  /**
   * Asks {@code endpoint} the JSON question {@code body} through {@code delivery}, as {@link
   * io.kvrouter.transport.RequestPlane#ask} does.
   */
  public Future<List<JsonNode>> ask(
      WorkerEndpoint endpoint,
      String requestId,
      byte[] body,
      Duration timeout,
      String callHomeHost,
      Delivery delivery) {
    Buffer question;
    try {
      question = Payloads.question(body, endpoint.codec());
    } catch (TcpCodecException e) {
      return Future.failedFuture(new IllegalArgumentException(e.getMessage(), e));
    }
    PendingCall<CallHomeAnswer> call =
        callHome.register(
            endpoint,
            requestId,
            (context, link, c) ->
                new CallHomeAnswer(context, link, c.worker(), config.maxMessageSize()));
    dispatch(call, question, callHomeHost, delivery);
    return CallHomeAnswer.within(vertx, call, timeout);
  }

  /** Stops listening; the calls still waiting fail. */
  public Future<Void> close() {
    return callHome.close();
  }

  private void dispatch(PendingCall<?> call, Buffer body, String callHomeHost, Delivery delivery) {
    callHome
        .ready()
        .compose(bound -> deliver(call, body, callHomeHost, delivery))
        .onComplete(
            delivered -> {
              if (delivered.succeeded()) {
                CallHomeDeadlines.arm(vertx, config, call);
              } else {
                call.fail(delivered.cause());
              }
            });
  }

  private Future<Void> deliver(
      PendingCall<?> call, Buffer body, String callHomeHost, Delivery delivery) {
    byte[] envelope;
    try {
      envelope = envelope(call, body, callHomeHost);
    } catch (TcpCodecException e) {
      // too large for the wire: no worker could take it, so it is the client's request at fault
      return Future.failedFuture(new InvalidRequestException(e.getMessage(), null));
    }
    return delivery.deliver(call.worker(), call.requestId(), envelope);
  }

  private byte[] envelope(PendingCall<?> call, Buffer body, String callHomeHost) {
    return envelope(call, body, callHomeHost, callHome, config).getBytes();
  }

  /**
   * A request's TwoPart envelope: the control message (JSON, naming the worker's payload codec and
   * where to send the response) and the body. The response goes to {@code listener} on a call-home
   * connection, or as a {@code tcp_response_mux_v1} stream (whose id is the call's subject) when
   * {@code config} says so for the worker (never for a worker on Dynamo's HTTP request plane, whose
   * builds predate the mux); a mux call is told then that it waits for no call back ({@link
   * PendingCall#expectNoCallBack()}). Throws {@link TcpCodecException} when the envelope exceeds
   * the largest message.
   */
  static Buffer envelope(
      PendingCall<?> call,
      Buffer body,
      String callHomeHost,
      CallHomeListener listener,
      TcpConfig config) {
    return TwoPartEncoder.encode(
        new TwoPartMessage(header(call, callHomeHost, listener, config), body),
        config.maxMessageSize());
  }

  /** The envelope's header: {@code call}'s control message, JSON. */
  static Buffer header(
      PendingCall<?> call, String callHomeHost, CallHomeListener listener, TcpConfig config) {
    String address = new HostAndPort(callHomeHost, listener.port()).toString();
    RequestControlMessage.ConnectionInfo response;
    if (!call.worker().isDynamoHttp()
        && config.responseStreams().forWorker(call.worker().workerId()) == ResponseStreamKind.MUX) {
      call.expectNoCallBack();
      response =
          new ResponseMuxInfo(
                  address,
                  listener.serverId(),
                  UUID.fromString(call.subject()),
                  call.requestId(),
                  MuxHandshake.VERSION)
              .connectionInfo();
    } else {
      response =
          new ResponseStreamInfo(
                  address, call.subject(), call.requestId(), ResponseStreamInfo.RESPONSE)
              .connectionInfo();
    }
    return WireJson.write(
        RequestControlMessage.singleInManyOut(call.requestId(), response, call.worker().codec()));
  }
}
