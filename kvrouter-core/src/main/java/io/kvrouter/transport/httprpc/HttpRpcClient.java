package io.kvrouter.transport.httprpc;

import io.kvrouter.config.HttpRpcClientConfig;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.InvalidRequestException;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.kvrouter.transport.tcp.UrlDelivery;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The frontend side of Dynamo's HTTP request plane, as Dynamo's {@code HttpRequestClient} and
 * {@code AddressedPushRouter} send it (lib/runtime/src/pipeline/network/egress/http_router.rs and
 * addressed_router.rs before their removal; docs/interop.md §10.12):
 *
 * <pre>
 * POST /v1/rpc/generate HTTP/1.1            the URL the worker advertises, verbatim
 * content-type: application/octet-stream
 * request-id: {router's id}                  x-request-id: {client's id} (RequestIdHeaders)
 * x-frontend-send-ts-ns: {Unix time in ns}
 *
 * u64 BE header length | u64 BE body length | u64 BE checksum (0) | header | body
 *     the TwoPart envelope of a TCP request frame's payload: header = RequestControlMessage
 *     JSON whose connection_info names the call-home listener, body = the request
 *
 * HTTP/1.1 202 Accepted                      sent before the worker decodes the envelope
 * </pre>
 *
 * <p>Any 2xx is the acknowledgement; the response stream then comes over TCP call-home. 413 (the
 * envelope is over the worker's body limit) is the client's request at fault, as an envelope over
 * the TCP plane's largest message is; another status refuses the request with the worker's text
 * (404 "Endpoint not found": the endpoint is not registered there, or no longer). No connection, or
 * no answer within {@code DYN_HTTP_REQUEST_TIMEOUT} from the start of the POST (connecting
 * included, as reqwest's timeout), makes the worker unreachable. HTTP/1.1 on pooled keep-alive
 * connections by default, as Dynamo's client; with {@code DYN_HTTP2_PRIOR_KNOWLEDGE} HTTP/2 without
 * negotiation (h2c), many requests on one connection. A probe is an empty POST, which a live worker
 * acknowledges and drops.
 */
public final class HttpRpcClient implements UrlDelivery {
  static final String CONTENT_TYPE = "application/octet-stream";
  static final String SEND_TIME = "x-frontend-send-ts-ns";

  /** Idle connections kept per worker, and how long (Dynamo's pool defaults). */
  static final int MAX_CONNECTIONS_PER_WORKER = 100;

  static final int IDLE_SECONDS = 90;

  private final Vertx vertx;
  private final HttpClient client;
  private final long timeoutMillis;
  private final long connectMillis;

  private HttpRpcClient(Vertx vertx, HttpClient client, long timeoutMillis, long connectMillis) {
    this.vertx = vertx;
    this.client = client;
    this.timeoutMillis = timeoutMillis;
    this.connectMillis = connectMillis;
  }

  /**
   * A client with {@code config}'s limits, connecting within {@code tcp}'s connect timeout (set on
   * each request, at most the request timeout).
   */
  public static HttpRpcClient create(Vertx vertx, HttpRpcClientConfig config, TcpConfig tcp) {
    HttpClientOptions options =
        new HttpClientOptions()
            .setKeepAlive(true)
            .setKeepAliveTimeout(IDLE_SECONDS)
            .setHttp2KeepAliveTimeout(IDLE_SECONDS);
    if (config.priorKnowledge()) {
      options.setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false);
    }
    HttpClient client =
        vertx
            .httpClientBuilder()
            .with(options)
            .with(new PoolOptions().setHttp1MaxSize(MAX_CONNECTIONS_PER_WORKER))
            .build();
    return new HttpRpcClient(
        vertx,
        client,
        config.requestTimeout().toMillis(),
        Math.min(tcp.connectTimeout().toMillis(), config.requestTimeout().toMillis()));
  }

  @Override
  public Future<Void> deliver(
      WorkerEndpoint worker, Map<String, String> headers, Function<String, Buffer> envelope) {
    long start = System.nanoTime();
    return client
        .request(options(worker))
        .compose(
            request -> {
              Buffer body;
              try {
                body = envelope.apply(request.connection().localAddress().hostAddress());
              } catch (RuntimeException e) {
                // an unsent request holds its connection (its HTTP/2 stream): sent empty, within
                // the timeout, it is given back, and a worker takes an empty body for a probe
                return acknowledged(worker, request, Buffer.buffer(), start)
                    .transform(ar -> Future.failedFuture(e));
              }
              headers.forEach(request::putHeader);
              request.putHeader(SEND_TIME, Long.toString(unixNanos()));
              return acknowledged(worker, request, body, start);
            })
        .recover(failure -> Future.failedFuture(classified(worker, failure)));
  }

  @Override
  public Future<Void> probe(WorkerEndpoint worker) {
    long start = System.nanoTime();
    return client
        .request(options(worker))
        .compose(request -> acknowledged(worker, request, Buffer.buffer(), start))
        .recover(failure -> Future.failedFuture(classified(worker, failure)));
  }

  @Override
  public Future<Void> close() {
    return client.close();
  }

  private RequestOptions options(WorkerEndpoint worker) {
    return new RequestOptions()
        .setMethod(HttpMethod.POST)
        .setAbsoluteURI(worker.url().toString())
        .putHeader("content-type", CONTENT_TYPE)
        .setConnectTimeout(connectMillis);
  }

  /**
   * Sends {@code body}; succeeds on a 2xx. The POST begun at {@code start} (System.nanoTime) is
   * reset when its answer has not come within the request timeout. The answer is read in the
   * callback that delivers it (a later stage could run on another context, after its body has gone
   * by).
   */
  private Future<Void> acknowledged(
      WorkerEndpoint worker, HttpClientRequest request, Buffer body, long start) {
    long left = Math.max(1, timeoutMillis - (System.nanoTime() - start) / 1_000_000);
    boolean[] late = {false};
    long timer =
        vertx.setTimer(
            left,
            id -> {
              late[0] = true;
              request.reset();
            });
    return request
        .send(body)
        .compose(
            response ->
                response
                    .body()
                    .compose(
                        text -> {
                          if (response.statusCode() / 100 == 2) {
                            return Future.<Void>succeededFuture();
                          }
                          return Future.failedFuture(
                              response.statusCode() == 413
                                  ? tooLarge(body)
                                  : refused(worker, response, text));
                        }))
        .recover(
            failure ->
                Future.failedFuture(
                    late[0]
                        ? new TimeoutException("reset after " + timeoutMillis + " ms")
                        : failure))
        .andThen(ar -> vertx.cancelTimer(timer));
  }

  private static InvalidRequestException tooLarge(Buffer body) {
    return new InvalidRequestException(
        "The request's "
            + body.length()
            + " bytes exceed what the worker takes in one request (it answered HTTP 413)",
        null);
  }

  private static WorkerUnavailableException refused(
      WorkerEndpoint worker, HttpClientResponse response, Buffer text) {
    String said = text.length() > 200 ? text.getString(0, 200) + "…" : text.toString();
    return WorkerUnavailableException.refused(
        worker.workerId(),
        "HTTP request failed with status " + response.statusCode() + ": " + said);
  }

  private Throwable classified(WorkerEndpoint worker, Throwable failure) {
    if (failure instanceof WorkerUnavailableException
        || failure instanceof InvalidRequestException) {
      return failure;
    }
    if (failure instanceof TimeoutException) {
      // the answer's timer, or Vert.x's for getting a connection: both within the request timeout
      return WorkerUnavailableException.unreachable(
          worker.workerId(),
          "no answer from " + worker.url() + " within " + timeoutMillis + " ms",
          failure);
    }
    return WorkerUnavailableException.unreachable(
        worker.workerId(), "cannot post to " + worker.url() + ": " + failure.getMessage(), failure);
  }

  private static long unixNanos() {
    java.time.Instant now = java.time.Instant.now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }
}
