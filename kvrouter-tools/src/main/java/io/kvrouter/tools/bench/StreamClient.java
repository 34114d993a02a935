package io.kvrouter.tools.bench;

import io.kvrouter.common.Ticker;
import io.kvrouter.tools.trace.TraceRequest;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.parsetools.RecordParser;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Sends benchmark requests and reads their event streams, on one event loop with a connection pool
 * of its own. One is deployed per event loop and requests are dealt out among them, so the
 * per-event work (timestamp, JSON of a chunk) spreads over the cores while each request's state
 * stays on one thread. Every outcome goes to the {@link BenchCollector}: a request either completes
 * (its {@code [DONE]} arrived) or fails, exactly once.
 */
final class StreamClient extends VerticleBase {
  private final RequestOptions target;
  private final int connections;
  private final long timeoutMs;
  private final BenchCollector collector;
  private final Ticker ticker;
  private HttpClientAgent client;

  private StreamClient(
      String baseUrl, int connections, Duration timeout, BenchCollector collector, Ticker ticker) {
    this.target =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setAbsoluteURI(baseUrl + "/v1/completions")
            .putHeader("content-type", "application/json")
            .putHeader("accept", "text/event-stream");
    this.connections = connections;
    this.timeoutMs = timeout.toMillis();
    this.collector = collector;
    this.ticker = ticker;
  }

  /**
   * {@code instances} clients sharing {@code connections} connections, one per event loop, timing
   * each request's events on {@code ticker}.
   */
  static Future<List<StreamClient>> deploy(
      Vertx vertx,
      int instances,
      String baseUrl,
      int connections,
      Duration timeout,
      BenchCollector collector,
      Ticker ticker) {
    List<StreamClient> clients = new CopyOnWriteArrayList<>();
    int each = Math.max(1, (connections + instances - 1) / instances);
    return vertx
        .deployVerticle(
            () -> {
              StreamClient client = new StreamClient(baseUrl, each, timeout, collector, ticker);
              clients.add(client);
              return client;
            },
            new DeploymentOptions().setInstances(instances))
        .map(id -> List.copyOf(clients));
  }

  @Override
  public Future<?> start() {
    client =
        vertx.createHttpClient(
            new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true),
            new PoolOptions().setHttp1MaxSize(connections));
    return Future.succeededFuture();
  }

  @Override
  public Future<?> stop() {
    return client.close();
  }

  /** Sends {@code body} for {@code request} now, on this client's event loop; from any thread. */
  void send(TraceRequest request, Buffer body, long dueNanos) {
    context.runOnContext(v -> new Exchange(request, body, dueNanos).start());
  }

  /** One request, from its send to its end; all of it on this client's event loop. */
  private final class Exchange {
    private final TraceRequest request;
    private final Buffer body;
    private final long dueNanos;
    private final SseLines sse = new SseLines();
    private RequestClock clock;
    private HttpClientRequest http;
    private long timer;
    private boolean over;

    Exchange(TraceRequest request, Buffer body, long dueNanos) {
      this.request = request;
      this.body = body;
      this.dueNanos = dueNanos;
    }

    void start() {
      long now = ticker.nanos();
      clock = new RequestClock(now, request.outputTokens());
      collector.sent(now, now - dueNanos);
      timer =
          vertx.setTimer(
              timeoutMs, id -> fail("not done " + timeoutMs / 1000.0 + " s after its send"));
      client
          .request(target)
          .compose(
              req -> {
                if (over) {
                  req.reset();
                  return Future.failedFuture("timed out waiting for a connection");
                }
                http = req;
                return req.send(body);
              })
          .onComplete(
              sent -> {
                if (sent.failed()) {
                  fail(describe(sent.cause()));
                } else {
                  read(sent.result());
                }
              });
    }

    private void read(HttpClientResponse response) {
      if (response.statusCode() != 200) {
        response
            .body()
            .onComplete(
                b ->
                    fail(
                        b.failed()
                            ? "HTTP " + response.statusCode()
                            : RouterApi.describe(
                                new RouterApi.Reply(response.statusCode(), b.result()))));
        return;
      }
      RecordParser lines = RecordParser.newDelimited("\n", response);
      lines.exceptionHandler(e -> fail(describe(e)));
      lines.handler(line -> onData(sse.line(line.toString(StandardCharsets.UTF_8))));
      lines.endHandler(
          v -> {
            onData(sse.end());
            fail("the stream ended before data: [DONE]");
          });
    }

    /** {@code data}: an event's data, or null when the line ended no event. */
    private void onData(String data) {
      if (data == null || over) {
        return;
      }
      long now = ticker.nanos();
      StreamChunk chunk = StreamChunk.parse(data);
      if (chunk.error() != null) {
        fail(chunk.error());
      } else if (chunk.done()) {
        over = true;
        vertx.cancelTimer(timer);
        collector.completed(request.index(), clock.done(now), now);
      } else {
        clock.event(now, chunk.content());
        if (chunk.usageTokens() >= 0) {
          clock.usage(chunk.usageTokens());
        }
      }
    }

    private void fail(String message) {
      if (over) {
        return;
      }
      over = true;
      vertx.cancelTimer(timer);
      if (http != null) {
        http.reset();
      }
      collector.failed(request.index(), message);
    }
  }

  private static String describe(Throwable e) {
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }
}
