package io.kvrouter.transport.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvrouter.config.EngineTls;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.kvrouter.transport.RequestPlane;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request plane to plain engines' HTTP servers ({@code vllm serve}): each request is a streamed
 * token-in {@code POST /v1/completions} ({@link VllmCompletions}) on a pooled keep-alive connection
 * (HTTPS for an {@code https://} URL, checked by {@link EngineTlsOptions}), with the client's and
 * the router's request ids in {@code X-Request-Id} ({@link
 * io.kvrouter.transport.RequestIdHeaders#forEngine}) and, for a data-parallel rank, {@code
 * X-data-parallel-rank}; the answer's server-sent events are the response stream ({@link
 * SseResponseStream}).
 *
 * <p>The same promises as the TCP plane: the send future fails with {@link
 * WorkerUnavailableException} when the server cannot be reached (connect timeout), answers no
 * headers within the prologue timeout (as long as a silent stream may be, since an engine may hold
 * its headers back until its first token), or answers anything but 200 (refused, with its message),
 * and succeeds once the 200 and its headers arrived. A probe is {@code GET /health}, which must
 * answer within the request timeout. Engines answer no Dynamo recovery queries, so {@link #ask}
 * refuses.
 */
public final class HttpRequestPlane implements RequestPlane {
  private static final Logger log = LoggerFactory.getLogger(HttpRequestPlane.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Headers vLLM reads (docs/notes/plain-engines.md §1.4). */
  static final String REQUEST_ID = "X-Request-Id";

  static final String DP_RANK = "X-data-parallel-rank";

  private final Vertx vertx;
  private final HttpClient client;
  private final TcpConfig timeouts;

  private HttpRequestPlane(Vertx vertx, HttpClient client, TcpConfig timeouts) {
    this.vertx = vertx;
    this.client = client;
    this.timeouts = timeouts;
  }

  /**
   * A plane with {@code connectTimeout} to connect and {@code requestTimeout} for the answer's
   * headers. A streamed answer holds its HTTP/1.1 connection to the end, so a cap on connections
   * per engine is a cap on its concurrent requests: the pool admits {@code maxStreams} (the
   * router's client connection cap; a completions request with several prompts sends one request
   * per prompt, and those past the cap wait in the pool's queue), and idle connections close after
   * the keep-alive timeout.
   */
  public static HttpRequestPlane create(
      Vertx vertx, TcpConfig config, int maxStreams, EngineTls tls) {
    EngineTlsOptions.load(vertx, tls);
    HttpClient client =
        vertx
            .httpClientBuilder()
            .with(
                EngineTlsOptions.apply(
                    new HttpClientOptions()
                        .setKeepAlive(true)
                        .setConnectTimeout((int) config.connectTimeout().toMillis()),
                    tls))
            .with(new PoolOptions().setHttp1MaxSize(maxStreams))
            .build();
    return new HttpRequestPlane(vertx, client, config);
  }

  @Override
  public Future<Void> start() {
    return Future.succeededFuture();
  }

  @Override
  public Future<ResponseStream> send(
      WorkerEndpoint worker, String requestId, PreprocessedRequest request) {
    EngineApi api = EngineApi.of(worker.engine());
    Buffer body;
    try {
      body = Buffer.buffer(JSON.writeValueAsBytes(api.body(request, requestId)));
    } catch (Exception e) {
      return Future.failedFuture(e);
    }
    RequestOptions options =
        options(worker, HttpMethod.POST, api.path())
            .putHeader("content-type", "application/json")
            .putHeader("accept", "text/event-stream");
    api.headers(options, request, requestId);
    return client
        .request(options)
        .recover(failure -> Future.failedFuture(unreachable(worker, failure)))
        .compose(
            outgoing -> {
              // the answer's headers must come within the prologue timeout (an engine may send
              // them only with its first token, after a long prefill); the body is then watched
              // by the router's stream idle timeout, never by this one
              long timer =
                  vertx.setTimer(
                      timeouts.prologueTimeout().toMillis(),
                      id ->
                          outgoing.reset(
                              0,
                              new java.util.concurrent.TimeoutException(
                                  "no answer within " + timeouts.prologueTimeout())));
              // the answer is read in the callback that delivers it: a later stage of the outer
              // chain may run on another context, after its body has already gone by
              return outgoing
                  .send(body)
                  .andThen(ar -> vertx.cancelTimer(timer))
                  .recover(failure -> Future.failedFuture(unreachable(worker, failure)))
                  .compose(
                      response -> {
                        if (response.statusCode() != 200) {
                          return refusal(worker, response);
                        }
                        return Future.succeededFuture(
                            (ResponseStream)
                                new SseResponseStream(
                                    vertx.getOrCreateContext(),
                                    response,
                                    worker,
                                    requestId,
                                    api.reader(),
                                    () ->
                                        api.abort(requestId)
                                            .ifPresent(abort -> post(worker, abort))));
                      });
            });
  }

  /** Posts {@code abort}; its answer does not matter (the request may have ended meanwhile). */
  private void post(WorkerEndpoint worker, EngineApi.Abort abort) {
    try {
      Buffer body = Buffer.buffer(JSON.writeValueAsBytes(abort.body()));
      client
          .request(
              options(worker, HttpMethod.POST, abort.path())
                  .putHeader("content-type", "application/json")
                  .setIdleTimeout(timeouts.requestTimeout().toMillis()))
          .compose(request -> request.send(body).compose(HttpClientResponse::body))
          .onFailure(
              e ->
                  log.debug(
                      "asking worker {} to abort failed: {}", worker.workerId(), e.toString()));
    } catch (Exception e) {
      // an abort that cannot be sent leaves the engine to notice the closed connection
    }
  }

  /** A non-200 answer: the worker refused the request, saying why in its error body. */
  private static Future<ResponseStream> refusal(
      WorkerEndpoint worker, HttpClientResponse response) {
    Promise<ResponseStream> refused = Promise.promise();
    response
        .body()
        .onComplete(
            ar -> {
              String message = "HTTP " + response.statusCode();
              if (ar.succeeded()) {
                message += ": " + errorMessage(ar.result());
              }
              refused.fail(WorkerUnavailableException.refused(worker.workerId(), message));
            });
    return refused.future();
  }

  /** The {@code error.message} of an OpenAI error body, else the body (truncated). */
  private static String errorMessage(Buffer body) {
    try {
      JsonNode json = JSON.readTree(body.getBytes());
      JsonNode message = json.path("error").path("message");
      if (message.isTextual()) {
        return message.asText();
      }
    } catch (Exception e) {
      // not JSON: the text itself
    }
    String text = body.toString();
    return text.length() > 200 ? text.substring(0, 200) + "…" : text;
  }

  private static WorkerUnavailableException unreachable(WorkerEndpoint worker, Throwable failure) {
    return WorkerUnavailableException.unreachable(
        worker.workerId(),
        "cannot reach " + worker.address() + ": " + failure.getMessage(),
        failure);
  }

  private RequestOptions options(WorkerEndpoint worker, HttpMethod method, String route) {
    return new RequestOptions()
        .setMethod(method)
        .setHost(worker.host())
        .setPort(worker.port())
        .setSsl("https".equals(worker.url().getScheme()))
        .setURI(worker.path() + route)
        .setConnectTimeout(timeouts.connectTimeout().toMillis());
  }

  @Override
  public Future<List<JsonNode>> ask(
      WorkerEndpoint endpoint, String requestId, byte[] body, Duration timeout) {
    return Future.failedFuture(
        WorkerUnavailableException.refused(
            endpoint.workerId(), "a plain engine's HTTP server answers no Dynamo queries"));
  }

  @Override
  public Future<Void> probe(WorkerEndpoint worker) {
    return client
        .request(
            options(worker, HttpMethod.GET, "/health")
                .setIdleTimeout(timeouts.requestTimeout().toMillis()))
        .compose(
            request ->
                request
                    .send()
                    .compose(
                        response ->
                            response
                                .body()
                                .compose(
                                    body ->
                                        response.statusCode() == 200
                                            ? Future.<Void>succeededFuture()
                                            : Future.failedFuture(
                                                WorkerUnavailableException.refused(
                                                    worker.workerId(),
                                                    "GET /health answered HTTP "
                                                        + response.statusCode())))))
        .recover(
            failure ->
                failure instanceof WorkerUnavailableException
                    ? Future.failedFuture(failure)
                    : Future.failedFuture(unreachable(worker, failure)));
  }

  @Override
  public Future<Void> close() {
    return client.close();
  }
}
