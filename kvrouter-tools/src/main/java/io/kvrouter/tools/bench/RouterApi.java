package io.kvrouter.tools.bench;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The router's small endpoints, asked on a client of their own so that polls never wait behind the
 * benchmark's streams for a connection: {@code /v1/models}, {@code /metrics}, {@code
 * /router/workers} and {@code /router/explain}.
 */
final class RouterApi {
  private static final Duration CONTROL_TIMEOUT = Duration.ofSeconds(10);

  private final String baseUrl;
  private final long timeoutMs;
  private final HttpClientAgent client;

  /**
   * @param baseUrl the router's base URL, without a trailing slash
   */
  RouterApi(Vertx vertx, String baseUrl) {
    this(vertx, baseUrl, CONTROL_TIMEOUT);
  }

  /**
   * @param timeout the longest a call waits for a connection, and then for the whole answer
   */
  RouterApi(Vertx vertx, String baseUrl, Duration timeout) {
    this.baseUrl = baseUrl;
    this.timeoutMs = timeout.toMillis();
    this.client =
        vertx.createHttpClient(
            new HttpClientOptions().setKeepAlive(true).setConnectTimeout((int) timeoutMs),
            new PoolOptions().setHttp1MaxSize(4));
  }

  /** An answer: its status and whole body. */
  record Reply(int status, Buffer body) {
    boolean ok() {
      return status / 100 == 2;
    }
  }

  /** The first model the router lists. */
  Future<String> firstModel() {
    return call(HttpMethod.GET, "/v1/models", null)
        .map(
            reply -> {
              if (!reply.ok()) {
                throw new IllegalStateException(describe(reply));
              }
              JsonArray models = new JsonObject(reply.body()).getJsonArray("data");
              if (models == null || models.isEmpty()) {
                throw new IllegalStateException("the router lists no model");
              }
              return models.getJsonObject(0).getString("id");
            });
  }

  /**
   * Whether the router's tokenizer takes {@code tokenId} in a prompt, asked of {@code POST
   * /router/explain}, which checks the prompt as a completion would but sends nothing to a worker.
   * Empty when the answer does not tell (no such endpoint: not a kvrouter).
   */
  Future<Optional<Boolean>> acceptsToken(String model, int tokenId) {
    JsonObject body =
        new JsonObject().put("model", model).put("prompt", new JsonArray().add(tokenId));
    return call(HttpMethod.POST, "/router/explain", body.toBuffer())
        .map(
            reply -> {
              if (reply.ok() || reply.status() == 409) {
                return Optional.of(true);
              }
              if (reply.status() == 400 && "prompt".equals(errorParam(reply))) {
                return Optional.of(false);
              }
              return Optional.empty();
            });
  }

  /** The Prometheus text of {@code /metrics}. */
  Future<String> metrics() {
    return call(HttpMethod.GET, "/metrics", null).map(reply -> ok(reply).body().toString());
  }

  /** Requests in flight per worker, from {@code /router/workers}. */
  Future<Map<String, Double>> workerLoads() {
    return call(HttpMethod.GET, "/router/workers", null)
        .map(reply -> workerLoads(new JsonObject(ok(reply).body())));
  }

  /** {@code active_requests} by {@code worker_id}, in the answer's order. */
  static Map<String, Double> workerLoads(JsonObject answer) {
    Map<String, Double> loads = new LinkedHashMap<>();
    JsonArray workers = answer.getJsonArray("workers", new JsonArray());
    for (int i = 0; i < workers.size(); i++) {
      JsonObject worker = workers.getJsonObject(i);
      Number active = worker.getNumber("active_requests");
      loads.put(
          String.valueOf(worker.getValue("worker_id")),
          active == null ? Double.NaN : active.doubleValue());
    }
    return loads;
  }

  private Future<Reply> call(HttpMethod method, String path, Buffer body) {
    RequestOptions options =
        new RequestOptions()
            .setMethod(method)
            .setAbsoluteURI(baseUrl + path)
            // also bounds the wait for a pooled connection, which has no limit otherwise
            .setConnectTimeout(timeoutMs);
    if (body != null) {
      options.putHeader("content-type", "application/json");
    }
    return client.request(options).compose(request -> exchange(request, body));
  }

  /**
   * Sends {@code request} and reads its whole answer, within the timeout: a request's own idle
   * timeout stops when the answer's head arrives, and a body that never ends would hold the call
   * and its connection for good.
   *
   * <p>The body is asked for by a handler set before the request goes out, not by one chained after
   * {@code send()}: Vert.x 5.0.8 never completes a {@code body()} asked after the response's end
   * was read (eclipse-vertx/vert.x#6038, fixed in 5.0.11), and a chain built on a thread outside
   * the event loop (the bench's main thread polls too) asks that late whenever the thread is
   * descheduled between building the chain's steps while the answer comes in.
   */
  private Future<Reply> exchange(HttpClientRequest request, Buffer body) {
    String what = request.getMethod() + " " + request.getURI();
    Future<Reply> reply =
        request
            .response()
            .compose(
                response -> response.body().map(bytes -> new Reply(response.statusCode(), bytes)))
            .timeout(timeoutMs, TimeUnit.MILLISECONDS)
            .recover(
                e -> {
                  request.reset(); // frees the connection an unfinished answer holds
                  return Future.failedFuture(
                      e instanceof TimeoutException
                          ? new TimeoutException(
                              what + ": no whole answer within " + timeoutMs + " ms")
                          : e);
                });
    if (body == null) {
      request.end();
    } else {
      request.end(body);
    }
    return reply;
  }

  private static Reply ok(Reply reply) {
    if (!reply.ok()) {
      throw new IllegalStateException(describe(reply));
    }
    return reply;
  }

  /** {@code HTTP status: message}, the message from an OpenAI error body when there is one. */
  static String describe(Reply reply) {
    return "HTTP " + reply.status() + ": " + errorMessage(reply.body());
  }

  static String errorMessage(Buffer body) {
    try {
      JsonObject json = new JsonObject(body);
      if (json.containsKey("error")) {
        return StreamChunk.errorMessage(json.getValue("error"));
      }
    } catch (RuntimeException e) {
      // not JSON: the text itself is the message
    }
    String text = body.toString().strip();
    return text.length() <= 200 ? text : text.substring(0, 200) + "...";
  }

  private static String errorParam(Reply reply) {
    try {
      JsonObject error = new JsonObject(reply.body()).getJsonObject("error");
      return error == null ? null : error.getString("param");
    } catch (RuntimeException e) {
      return null;
    }
  }
}
