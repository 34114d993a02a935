package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.InvalidRequestException;
import io.kvrouter.protocol.PayloadCodec;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.kvrouter.transport.RequestIdHeaders;
import io.kvrouter.transport.RequestPlane;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The frontend side of Dynamo's TCP request plane (see the package Javadoc for the pinned version).
 * Requests go out on per-worker connection pools; responses come back through one listener, on a
 * call-home connection per request or on the worker's pooled {@code tcp_response_mux_v1}
 * connections, as {@link TcpConfig#responseStreams()} says for each worker. Pools live on one
 * Vert.x context, so the public methods hop onto it; each response stream runs on the event loop of
 * the connection it arrives on.
 */
final class TcpRequestPlane implements RequestPlane {

  private final Vertx vertx;
  private final TcpConfig config;
  private final Context context;
  private final PlaneClient client;
  private final CallHomeListener callHome;
  private final UrlDelivery urls; // null: no worker is reached by URL

  /** Requests with prompts up to this many tokens are encoded on the event loop (under 1 ms). */
  static final int INLINE_ENCODE_TOKENS = 64 * 1024;

  private final Map<HostAndPort, ConnectionPool> pools = new HashMap<>();
  private boolean closed;

  TcpRequestPlane(Vertx vertx, TcpConfig config, UrlDelivery urls) {
    this.vertx = vertx;
    this.config = config;
    this.urls = urls;
    this.context = vertx.getOrCreateContext();
    TcpTlsOptions.warnIfOneSided(config.tls());
    TcpTlsOptions.load(vertx, config);
    this.client = PlaneClient.create(vertx, config);
    this.callHome = new CallHomeListener(vertx, config, Runtime.getRuntime().availableProcessors());
  }

  @Override
  public Future<ResponseStream> send(
      WorkerEndpoint worker, String requestId, PreprocessedRequest request) {
    PendingCall<CallHomeStream> call =
        callHome.register(
            worker,
            requestId,
            (context, link, c) -> new CallHomeStream(context, link, c.worker(), c.requestId()));
    // A prompt that cannot fit in a frame (each token id takes at least two JSON bytes) is refused
    // unencoded.
    long minimumBytes = 2L * request.tokenIds().length;
    if (minimumBytes > config.maxMessageSize()) {
      call.fail(
          new InvalidRequestException(
              "The prompt's "
                  + request.tokenIds().length
                  + " tokens do not fit in a request-plane"
                  + " frame of at most "
                  + config.maxMessageSize()
                  + " bytes"
                  + " (DYN_TCP_MAX_MESSAGE_SIZE)",
              null));
      return call.future().map(stream -> stream);
    }
    encode(request, worker.codec())
        .onComplete(
            encoded -> {
              if (encoded.failed()) {
                call.fail(encoded.cause());
              } else {
                Map<String, String> headers = RequestIdHeaders.forDynamo(requestId, request);
                afterBind(
                    () -> dispatch(call, encoded.result(), headers), failure -> call.fail(failure));
              }
            });
    return call.future().map(stream -> stream);
  }

  /**
   * The request's body in {@code codec}, written on the caller's event loop, not on the plane's
   * shared one; a prompt of more than {@link #INLINE_ENCODE_TOKENS} tokens (millions of ids take
   * hundreds of milliseconds) on a worker thread, the result coming back to the caller's context.
   */
  static Future<Buffer> encode(Vertx vertx, PreprocessedRequest request, PayloadCodec codec) {
    if (request.tokenIds().length <= INLINE_ENCODE_TOKENS) {
      try {
        return Future.succeededFuture(Payloads.request(request, codec));
      } catch (TcpCodecException e) {
        return Future.failedFuture(e);
      }
    }
    return vertx
        .getOrCreateContext()
        .executeBlocking(() -> Payloads.request(request, codec), false);
  }

  private Future<Buffer> encode(PreprocessedRequest request, PayloadCodec codec) {
    return encode(vertx, request, codec);
  }

  /**
   * Sends {@code body} to the endpoint and reads its answer whole (see {@link CallHomeAnswer}). At
   * {@code timeout} the call is given up: before the stream opens it fails as an unreachable
   * worker, after it the worker is told to stop.
   */
  @Override
  public Future<List<JsonNode>> ask(
      WorkerEndpoint endpoint, String requestId, byte[] body, Duration timeout) {
    PendingCall<CallHomeAnswer> call =
        callHome.register(
            endpoint,
            requestId,
            (context, link, c) ->
                new CallHomeAnswer(context, link, c.worker(), config.maxMessageSize()));
    Buffer payload;
    try {
      payload = Payloads.question(body, endpoint.codec());
    } catch (TcpCodecException e) {
      return Future.failedFuture(new IllegalArgumentException(e.getMessage(), e));
    }
    Map<String, String> headers = RequestIdHeaders.forDynamo(requestId, null);
    afterBind(() -> dispatch(call, payload, headers), failure -> call.fail(failure));
    return CallHomeAnswer.within(vertx, call, timeout);
  }

  /** Sends a {@link HealthProbe}: succeeds only when the worker process answers it. */
  @Override
  public Future<Void> probe(WorkerEndpoint worker) {
    if (closed) {
      return Future.failedFuture(
          WorkerUnavailableException.unreachable(worker.workerId(), "request plane closed", null));
    }
    if (worker.isDynamoHttp()) {
      return urls == null ? Future.failedFuture(noUrls(worker)) : urls.probe(worker);
    }
    return HealthProbe.run(vertx, client, config, worker);
  }

  @Override
  public Future<Void> close() {
    Promise<Void> done = Promise.promise();
    onContext(
        () -> {
          closed = true;
          List.copyOf(pools.values()).forEach(ConnectionPool::close);
          pools.clear();
          Future.join(
                  callHome.close(),
                  client.close(),
                  urls == null ? Future.succeededFuture() : urls.close())
              .<Void>mapEmpty()
              .onComplete(done);
        });
    return done.future();
  }

  private void dispatch(PendingCall<?> call, Buffer body, Map<String, String> headers) {
    if (closed) {
      call.fail("request plane closed", null);
      return;
    }
    WorkerEndpoint worker = call.worker();
    if (worker.isDynamoHttp()) {
      post(call, body, headers);
      return;
    }
    pool(worker).pick().submit(call, localHost -> frame(call, body, headers, localHost));
  }

  /**
   * Posts {@code call}'s envelope to its worker's URL; once the worker accepted it, the call-home
   * limits start, as after a TCP acknowledgement.
   */
  private void post(PendingCall<?> call, Buffer body, Map<String, String> headers) {
    if (urls == null) {
      call.fail(noUrls(call.worker()));
      return;
    }
    Future<Void> delivered;
    try {
      // too large for the wire is the client's request, found before any connection is taken:
      // the envelope differs from the one posted only by the call-home host, here the longest
      checkSize(call, body);
      delivered =
          urls.deliver(call.worker(), headers, localHost -> envelope(call, body, localHost));
    } catch (RuntimeException e) {
      delivered = Future.failedFuture(e);
    }
    delivered.onComplete(
        ar ->
            onContext(
                () -> {
                  if (ar.succeeded()) {
                    CallHomeDeadlines.arm(vertx, config, call);
                  } else if (ar.cause() instanceof WorkerUnavailableException w
                      && w.workerFault()) {
                    call.fail(w.reason(), w.getCause()); // out of descriptors is not the worker
                  } else {
                    call.fail(ar.cause());
                  }
                }));
  }

  /**
   * Longer than any local address a worker can be told to call back when none is configured (an
   * IPv6 address with a scope such as {@code fe80:0:0:0:…%eth0} included).
   */
  private static final String LONGEST_HOST = "f".repeat(64);

  private void checkSize(PendingCall<?> call, Buffer body) {
    try {
      TwoPartEncoder.checkSize(
          CallHomeRequests.header(call, callHomeHost(LONGEST_HOST), callHome, config).length(),
          body.length(),
          config.maxMessageSize());
    } catch (TcpCodecException e) {
      throw new InvalidRequestException(e.getMessage(), null);
    }
  }

  /** The envelope of a posted request; one too large for the wire is the client's request. */
  private Buffer envelope(PendingCall<?> call, Buffer body, String localHost) {
    try {
      return CallHomeRequests.envelope(call, body, callHomeHost(localHost), callHome, config);
    } catch (TcpCodecException e) {
      throw new InvalidRequestException(e.getMessage(), null);
    }
  }

  private static WorkerUnavailableException noUrls(WorkerEndpoint worker) {
    return WorkerUnavailableException.unreachable(
        worker.workerId(),
        "it serves Dynamo's HTTP request plane, and this router was not started with"
            + " --request-plane http",
        null);
  }

  /**
   * The request frame for {@code call}, telling the worker where to send the response: a call-home
   * or a stream on its pooled mux connections, as configured for that worker.
   */
  private Buffer frame(
      PendingCall<?> call, Buffer body, Map<String, String> headers, String localHost) {
    Buffer payload =
        CallHomeRequests.envelope(call, body, callHomeHost(localHost), callHome, config);
    return RequestFrameEncoder.encode(
        new RequestFrame(call.worker().path(), headers, payload), config.maxMessageSize());
  }

  /**
   * The host workers are told to call back: the configured advertise host; else the listener's own
   * host when it is bound to one address; else the local address of the connection the request
   * leaves on, which the worker can reach since it is talking to it.
   */
  private String callHomeHost(String localHost) {
    String configured = CallHomeRequests.configuredCallHomeHost(config);
    return configured != null ? configured : localHost;
  }

  private ConnectionPool pool(WorkerEndpoint worker) {
    return pools.computeIfAbsent(
        endpoint(worker), address -> new ConnectionPool(vertx, client, address, config));
  }

  private static HostAndPort endpoint(WorkerEndpoint worker) {
    return new HostAndPort(worker.host(), worker.port());
  }

  /**
   * Runs {@code action} on the context once the call-home listener is bound. A listener that cannot
   * bind is a local misconfiguration, not a worker fault, so it fails with {@link
   * IllegalStateException}.
   */
  @Override
  public Future<Void> start() {
    return callHome.ready();
  }

  private IllegalStateException bindFailure(Throwable cause) {
    return callHome.bindFailure(cause);
  }

  private void afterBind(Runnable action, Consumer<Throwable> failed) {
    Future<?> bound = callHome.listening();
    if (bound.succeeded()) {
      onContext(action);
      return;
    }
    bound.onComplete(
        ar -> {
          if (ar.succeeded()) {
            onContext(action);
          } else {
            failed.accept(bindFailure(ar.cause()));
          }
        });
  }

  private void onContext(Runnable action) {
    if (Vertx.currentContext() == context) {
      action.run();
    } else {
      context.runOnContext(v -> action.run());
    }
  }
}
