package io.kvrouter.bench;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Recorder;

/**
 * End-to-end load for streamed chat completions: sends {@code POST /v1/chat/completions} with
 * {@code stream:true} and measures each request from send to the last SSE byte ({@code [DONE]}).
 *
 * <p>Closed loop (default): {@code --concurrency} requests always in flight, as fast as they
 * complete. Open loop ({@code --rate R}): R requests per second on a fixed schedule, latency
 * measured from each request's scheduled time, so a stalled server is not hidden (no coordinated
 * omission). Prints one JSON line of results.
 *
 * <pre>
 * java -cp ... io.kvrouter.bench.SseLoadGenerator --url http://127.0.0.1:8000 \
 *     --concurrency 32 --duration 20 --warmup 5 [--rate 1000] [--prompt-chars 80] [--max-tokens 32]
 *     [--api completions]
 * </pre>
 *
 * With {@code --api completions} it speaks a plain engine's API instead: {@code POST
 * /v1/completions} with the prompt as {@code --prompt-chars} token ids and {@code ignore_eos}, what
 * a proxy in front of a {@code vllm serve} relays.
 */
public final class SseLoadGenerator {
  private final Vertx vertx;
  private final HttpClientAgent client;
  private final RequestOptions target;
  private final Buffer body;
  private final Recorder latency = new Recorder(3);
  private final AtomicLong completed = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private volatile boolean measuring;
  private volatile boolean stopped;

  private SseLoadGenerator(
      String url, int concurrency, int promptChars, int maxTokens, boolean completions) {
    this.vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    this.client =
        vertx.createHttpClient(
            new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true),
            new PoolOptions().setHttp1MaxSize(concurrency));
    this.target =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setAbsoluteURI(url + (completions ? "/v1/completions" : "/v1/chat/completions"))
            .putHeader("content-type", "application/json");
    String prompt = "benchmark prompt ".repeat(promptChars / 17 + 1).substring(0, promptChars);
    if (completions) {
      JsonArray ids = new JsonArray();
      for (int i = 0; i < promptChars; i++) {
        ids.add(32 + i % 90);
      }
      this.body =
          new JsonObject()
              .put("model", "mock-model")
              .put("stream", true)
              .put("max_tokens", maxTokens)
              .put("ignore_eos", true)
              .put("prompt", ids)
              .toBuffer();
      return;
    }
    this.body =
        new JsonObject()
            .put("model", "mock-model")
            .put("stream", true)
            .put("max_tokens", maxTokens)
            .put(
                "messages",
                new JsonArray().add(new JsonObject().put("role", "user").put("content", prompt)))
            .toBuffer();
  }

  public static void main(String[] args) throws Exception {
    Args a = new Args(args);
    SseLoadGenerator load =
        new SseLoadGenerator(
            a.string("--url"),
            a.integer("--concurrency", 32),
            a.integer("--prompt-chars", 80),
            a.integer("--max-tokens", 32),
            "completions".equals(a.string("--api", "chat")));
    int rate = a.integer("--rate", 0);
    load.run(
        a.integer("--concurrency", 32),
        rate,
        a.integer("--warmup", 5),
        a.integer("--duration", 20));
  }

  private void run(int concurrency, int rate, int warmupSeconds, int durationSeconds)
      throws Exception {
    if (rate > 0) {
      openLoop(rate);
    } else {
      for (int i = 0; i < concurrency; i++) {
        vertx.runOnContext(v -> closedLoop());
      }
    }
    Thread.sleep(warmupSeconds * 1000L);
    latency.reset();
    completed.set(0);
    errors.set(0);
    measuring = true;
    long start = System.nanoTime();
    Thread.sleep(durationSeconds * 1000L);
    var histogram = latency.getIntervalHistogram();
    double seconds = (System.nanoTime() - start) / 1e9;
    long done = completed.get();
    stopped = true;
    JsonObject result =
        new JsonObject()
            .put("mode", rate > 0 ? "open" : "closed")
            .put("concurrency", concurrency)
            .put("target_rate", rate)
            .put("requests", done)
            .put("errors", errors.get())
            .put("rps", Math.round(done / seconds))
            .put("p50_ms", histogram.getValueAtPercentile(50) / 1000.0)
            .put("p99_ms", histogram.getValueAtPercentile(99) / 1000.0)
            .put("max_ms", histogram.getMaxValue() / 1000.0);
    System.out.println(result.encode());
    CountDownLatch closed = new CountDownLatch(1);
    vertx.close().onComplete(v -> closed.countDown());
    closed.await(10, TimeUnit.SECONDS);
  }

  private void closedLoop() {
    if (stopped) {
      return;
    }
    long start = System.nanoTime();
    send(start).onComplete(v -> closedLoop());
  }

  private void openLoop(int rate) {
    long start = System.nanoTime();
    long[] sent = {0};
    vertx.setPeriodic(
        1,
        id -> {
          if (stopped) {
            vertx.cancelTimer(id);
            return;
          }
          long due = (System.nanoTime() - start) * rate / 1_000_000_000L;
          while (sent[0] < due) {
            long scheduled = start + sent[0] * 1_000_000_000L / rate;
            sent[0]++;
            send(scheduled);
          }
        });
  }

  /** Sends one request; completes when its whole stream has arrived (or failed). */
  private io.vertx.core.Future<Void> send(long startNanos) {
    return client
        .request(target)
        .compose(request -> request.send(body))
        .compose(
            response ->
                response
                    .body()
                    .map(
                        b ->
                            response.statusCode() == 200
                                && b.toString().endsWith("data: [DONE]\n\n")))
        .andThen(
            ar -> {
              if (!measuring) {
                return;
              }
              if (ar.succeeded() && ar.result()) {
                latency.recordValue((System.nanoTime() - startNanos) / 1000);
                completed.incrementAndGet();
              } else {
                errors.incrementAndGet();
              }
            })
        .transform(ar -> io.vertx.core.Future.succeededFuture());
  }

  /** {@code --name value} pairs. */
  static final class Args {
    private final String[] args;

    Args(String[] args) {
      this.args = args;
    }

    String string(String name, String otherwise) {
      for (int i = 0; i < args.length - 1; i++) {
        if (args[i].equals(name)) {
          return args[i + 1];
        }
      }
      return otherwise;
    }

    String string(String name) {
      for (int i = 0; i < args.length - 1; i++) {
        if (args[i].equals(name)) {
          return args[i + 1];
        }
      }
      throw new IllegalArgumentException(name + " is required");
    }

    int integer(String name, int fallback) {
      for (int i = 0; i < args.length - 1; i++) {
        if (args[i].equals(name)) {
          return Integer.parseInt(args[i + 1]);
        }
      }
      return fallback;
    }
  }
}
