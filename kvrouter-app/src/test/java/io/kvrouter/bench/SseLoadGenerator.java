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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
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
 *     [--api completions] [--model NAME, default mock-model]
 * </pre>
 *
 * With {@code --api completions} it speaks a plain engine's API instead: {@code POST
 * /v1/completions} with the prompt as {@code --prompt-chars} token ids and {@code ignore_eos}, what
 * a proxy in front of a {@code vllm serve} relays.
 *
 * <p>Warm-up: {@code --warmup S} seconds at least; with {@code --warmup-flat}, then on in 5 s
 * windows until two windows in a row differ by under 3% in completed requests (the JIT is done),
 * for at most {@code --warmup-max} seconds (default 120). {@code --cpu-pids P1,P2} reads each
 * process's user + system CPU time from {@code /proc/PID/stat} at the start and end of the measured
 * span and reports it in milliseconds, and per completed request in microseconds.
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
      String url,
      String model,
      int concurrency,
      int promptChars,
      int maxTokens,
      boolean completions) {
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
              .put("model", model)
              .put("stream", true)
              .put("max_tokens", maxTokens)
              .put("ignore_eos", true)
              .put("prompt", ids)
              .toBuffer();
      return;
    }
    this.body =
        new JsonObject()
            .put("model", model)
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
            a.string("--model", "mock-model"),
            a.integer("--concurrency", 32),
            a.integer("--prompt-chars", 80),
            a.integer("--max-tokens", 32),
            "completions".equals(a.string("--api", "chat")));
    int rate = a.integer("--rate", 0);
    String pids = a.string("--cpu-pids", "");
    load.run(
        a.integer("--concurrency", 32),
        rate,
        a.integer("--warmup", 5),
        a.has("--warmup-flat") ? a.integer("--warmup-max", 120) : 0,
        a.integer("--duration", 20),
        pids.isEmpty()
            ? new long[0]
            : Arrays.stream(pids.split(",")).mapToLong(Long::parseLong).toArray());
  }

  private void run(
      int concurrency,
      int rate,
      int warmupSeconds,
      int warmupMaxSeconds,
      int durationSeconds,
      long[] cpuPids)
      throws Exception {
    if (rate > 0) {
      openLoop(rate);
    } else {
      for (int i = 0; i < concurrency; i++) {
        vertx.runOnContext(v -> closedLoop());
      }
    }
    measuring = true;
    Thread.sleep(warmupSeconds * 1000L);
    long warmedNanos = warmUntilFlat(warmupSeconds, warmupMaxSeconds);
    latency.reset();
    completed.set(0);
    errors.set(0);
    long[] cpuBefore = cpuMillis(cpuPids);
    long start = System.nanoTime();
    Thread.sleep(durationSeconds * 1000L);
    var histogram = latency.getIntervalHistogram();
    double seconds = (System.nanoTime() - start) / 1e9;
    long done = completed.get();
    long[] cpuAfter = cpuMillis(cpuPids);
    stopped = true;
    JsonObject result =
        new JsonObject()
            .put("mode", rate > 0 ? "open" : "closed")
            .put("concurrency", concurrency)
            .put("target_rate", rate)
            .put("warmup_s", Math.round(warmedNanos / 1e9))
            .put("requests", done)
            .put("errors", errors.get())
            .put("rps", Math.round(done / seconds))
            .put("p50_ms", histogram.getValueAtPercentile(50) / 1000.0)
            .put("p99_ms", histogram.getValueAtPercentile(99) / 1000.0)
            .put("max_ms", histogram.getMaxValue() / 1000.0);
    JsonArray cpu = new JsonArray();
    for (int i = 0; i < cpuPids.length; i++) {
      long millis = cpuAfter[i] - cpuBefore[i];
      cpu.add(
          new JsonObject()
              .put("pid", cpuPids[i])
              .put("cpu_ms", millis)
              .put("cpu_us_per_request", done == 0 ? 0 : millis * 1000.0 / done));
    }
    if (cpuPids.length > 0) {
      result.put("cpu", cpu);
    }
    System.out.println(result.encode());
    CountDownLatch closed = new CountDownLatch(1);
    vertx.close().onComplete(v -> closed.countDown());
    closed.await(10, TimeUnit.SECONDS);
  }

  /**
   * Goes on warming in 5 s windows until two windows in a row complete within 3% of each other, or
   * {@code maxSeconds} have passed since the start; returns the whole warm-up's length.
   */
  private long warmUntilFlat(int minSeconds, int maxSeconds) throws InterruptedException {
    long begun = System.nanoTime() - minSeconds * 1_000_000_000L;
    long previous = -1;
    while (maxSeconds > 0 && System.nanoTime() - begun < maxSeconds * 1_000_000_000L) {
      long before = completed.get();
      Thread.sleep(5_000);
      long window = completed.get() - before;
      if (previous > 0 && Math.abs(window - previous) < 0.03 * previous) {
        break;
      }
      previous = window;
    }
    return System.nanoTime() - begun;
  }

  /** User + system CPU milliseconds of each process, from fields 14 and 15 of /proc/PID/stat. */
  private static long[] cpuMillis(long[] pids) throws java.io.IOException {
    long[] millis = new long[pids.length];
    for (int i = 0; i < pids.length; i++) {
      String stat = Files.readString(Path.of("/proc", Long.toString(pids[i]), "stat"));
      // the command name (field 2) may hold spaces; fields after it start past its ')'
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
      millis[i] = ticks * 1000 / CLOCK_TICKS_PER_SECOND;
    }
    return millis;
  }

  /** Linux's USER_HZ, 100 on every mainstream architecture. */
  private static final long CLOCK_TICKS_PER_SECOND = 100;

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
        // the body is read in the callback that delivers the answer: a later stage may run on
        // another context, after the body has gone by
        .compose(
            request ->
                request
                    .send(body)
                    .compose(
                        response ->
                            response
                                .body()
                                .map(
                                    b ->
                                        response.statusCode() == 200
                                            && b.toString().endsWith("data: [DONE]\n\n"))))
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

    boolean has(String name) {
      return Arrays.asList(args).contains(name);
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
