package io.kvrouter.tools.bench;

import io.kvrouter.common.Ticker;
import io.kvrouter.tools.bench.BenchSettings.TokenRange;
import io.kvrouter.tools.report.PolicyRun;
import io.kvrouter.tools.report.ProgressBar;
import io.kvrouter.tools.report.RunReport;
import io.kvrouter.tools.trace.MooncakeTrace;
import io.kvrouter.tools.trace.SyntheticTokens;
import io.kvrouter.tools.trace.TraceRequest;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * Replays a Mooncake trace against a live router as an HTTP client, on a fixed schedule: each
 * request is sent at its (scaled) trace time whether or not earlier ones have finished, so a slow
 * router shows as growing latency and requests in flight rather than as a slower client. Latency is
 * measured on the client, from each send: time to first token, gaps between tokens, end to end. The
 * router is polled alongside for its predicted KV hit rate and per-worker load.
 *
 * <p>The calling thread paces the sends (building each body just before its time) and then waits
 * for the last request; the HTTP work runs on the client's own event loops.
 */
public final class TraceBench {
  /**
   * A send this late behind its schedule is worth a warning: the client, not the router, lagged.
   */
  private static final double LAG_WARNING_MS = 100;

  private static final long CONTROL_WAIT_SECONDS = 60;

  private final BenchSettings settings;
  private final List<TraceRequest> requests;
  private final PrintWriter notes;
  private final Vertx vertx;
  private final Ticker ticker;

  /** One per router; the first is asked what it serves. */
  private final List<RouterApi> routers;

  private TraceBench(
      BenchSettings settings,
      List<TraceRequest> requests,
      PrintWriter notes,
      Vertx vertx,
      Ticker ticker) {
    this.settings = settings;
    this.requests = requests;
    this.notes = notes;
    this.vertx = vertx;
    this.ticker = ticker;
    this.routers = settings.baseUrls().stream().map(url -> new RouterApi(vertx, url)).toList();
  }

  /**
   * Runs the benchmark. Blocks until every request has completed or failed (each within {@link
   * BenchSettings#timeout}), so it must not be called on an event loop.
   *
   * @param notes told what is about to run (requests, model, label, prompt ids) and of a lagging
   *     client
   * @param ticker the wall clock the sends are paced and the latencies measured on ({@link
   *     Ticker#SYSTEM})
   * @throws io.kvrouter.tools.trace.TraceFormatException when the trace cannot be read
   * @throws IllegalArgumentException when no request arrives within the duration
   * @throws BenchException when the router cannot be reached or asked what it serves
   */
  public static BenchResult run(BenchSettings settings, PrintWriter notes, Ticker ticker) {
    List<TraceRequest> requests = schedule(settings);
    int loops = Math.max(2, Runtime.getRuntime().availableProcessors());
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(loops));
    try {
      return new TraceBench(settings, requests, notes, vertx, ticker).replay(loops);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().join();
    }
  }

  /** The trace's requests at the scaled rate, cut at the duration. */
  static List<TraceRequest> schedule(BenchSettings settings) {
    List<TraceRequest> all =
        MooncakeTrace.scaleRate(MooncakeTrace.read(settings.trace()), settings.rateScale());
    return settings.durationSeconds() == null
        ? all
        : MooncakeTrace.firstSeconds(all, settings.durationSeconds());
  }

  private BenchResult replay(int loops) {
    RouterApi api = routers.get(0);
    String model =
        settings.model() != null
            ? settings.model()
            : await(api.firstModel(), "cannot list the models at " + settings.baseUrls().get(0));
    TokenRange ids;
    String idsReason;
    if (settings.tokenRange() != null) {
      ids = settings.tokenRange();
      idsReason = "--token-range";
    } else {
      VocabularyProbe.Choice choice =
          await(VocabularyProbe.choose(api, model), "cannot choose prompt token ids");
      ids = choice.ids();
      idsReason = choice.reason();
    }
    String metrics = await(api.metrics().otherwiseEmpty(), "cannot read /metrics");
    RouterWatcher watcher = new RouterWatcher(vertx, routers, settings.interval());
    HitCounts baseline = await(watcher.hitCounts().otherwiseEmpty(), "cannot read /metrics");
    String label =
        settings.label() != null
            ? settings.label()
            : metrics == null ? "live" : RouterMetrics.routerMode(metrics).orElse("live");
    notes.printf(
        "bench: %d requests of %s at rate x%s to %s (model %s, label %s, prompt token ids %s: %s)%n",
        requests.size(),
        settings.trace().getFileName(),
        settings.rateScale(),
        String.join(", ", settings.baseUrls()),
        model,
        label,
        ids,
        idsReason);
    notes.flush();

    ProgressBar bar = ProgressBar.onStandardError(label, requests.size(), "requests", ticker);
    CountDownLatch finished = new CountDownLatch(requests.size());
    BenchCollector collector =
        new BenchCollector(
            done -> {
              bar.update(done);
              finished.countDown();
            });
    List<List<StreamClient>> clients = new ArrayList<>();
    for (String url : settings.baseUrls()) {
      clients.add(
          await(
              StreamClient.deploy(
                  vertx, loops, url, settings.connections(), settings.timeout(), collector, ticker),
              "cannot start the HTTP client"));
    }
    long start = ticker.nanos();
    watcher.start(start, baseline);
    send(clients, model, new SyntheticTokens(ids.first(), ids.count()), start);
    awaitAll(finished);
    bar.finish();
    await(watcher.finish(ticker.nanos()), "cannot poll the router");

    PolicyRun run = collector.policyRun(label, watcher.hitRate(), watcher.timeline());
    if (collector.maxLagMs() > LAG_WARNING_MS) {
      notes.printf(
          Locale.ROOT,
          "warning: some requests were sent up to %.0f ms behind their schedule; the client"
              + " could not keep up, so latencies (measured from each send) miss that delay%n",
          collector.maxLagMs());
    }
    RunReport report =
        new RunReport(
            "bench " + settings.trace().getFileName(),
            reportSettings(model, ids, collector),
            List.of(run));
    return new BenchResult(
        report, collector.results(), collector.failedCount(), collector.errors());
  }

  /**
   * Each request at its time, its body built just before: bodies are not all held at once. The
   * routers take the requests in turn, and each router's clients (one per event loop) in turn.
   */
  private void send(
      List<List<StreamClient>> clients, String model, SyntheticTokens tokens, long start) {
    for (int i = 0; i < requests.size(); i++) {
      TraceRequest request = requests.get(i);
      Buffer body =
          Buffer.buffer(CompletionBody.json(model, tokens.prompt(request), request.outputTokens()));
      long due = start + Math.round(request.arrivalMillis() * 1e6);
      for (long wait = due - ticker.nanos(); wait > 0; wait = due - ticker.nanos()) {
        LockSupport.parkNanos(wait);
      }
      List<StreamClient> router = clients.get(i % clients.size());
      router.get((i / clients.size()) % router.size()).send(request, body, due);
    }
  }

  private Map<String, String> reportSettings(String model, TokenRange ids, BenchCollector c) {
    Map<String, String> shown = new LinkedHashMap<>();
    shown.put("url", String.join(", ", settings.baseUrls()));
    shown.put("trace", settings.trace().toString());
    shown.put("model", model);
    shown.put("rate scale", String.valueOf(settings.rateScale()));
    shown.put(
        "duration s",
        settings.durationSeconds() == null ? "whole trace" : settings.durationSeconds().toString());
    shown.put("requests sent", String.valueOf(requests.size()));
    shown.put("requests failed", String.valueOf(c.failedCount()));
    shown.put("prompt token ids", ids.toString());
    shown.put("connections", String.valueOf(settings.connections()));
    shown.put("timeout s", String.valueOf(settings.timeout().toMillis() / 1000.0));
    shown.put("interval s", String.valueOf(settings.interval().toMillis() / 1000.0));
    shown.put("max send lag ms", String.format(Locale.ROOT, "%.1f", c.maxLagMs()));
    return shown;
  }

  private static void awaitAll(CountDownLatch finished) {
    try {
      finished.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchException("interrupted while requests were in flight", e);
    }
  }

  /** The future's value, on this (non event-loop) thread; a failure becomes a BenchException. */
  private static <T> T await(Future<T> future, String what) {
    try {
      return future
          .toCompletionStage()
          .toCompletableFuture()
          .get(CONTROL_WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new BenchException(what + ": " + cause.getMessage(), cause);
    } catch (TimeoutException e) {
      throw new BenchException(what + ": no answer in " + CONTROL_WAIT_SECONDS + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchException(what + ": interrupted", e);
    }
  }
}
