package io.kvrouter.app;

import io.kvrouter.common.FaultLog;
import io.kvrouter.common.PlainEngine;
import io.kvrouter.config.EngineTls;
import io.kvrouter.config.WorkerSpec;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerLoadReport;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.sglang.SglangMetrics;
import io.kvrouter.protocol.vllm.VllmMetrics;
import io.kvrouter.routing.Router;
import io.kvrouter.transport.http.EngineTlsOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The load and KV capacity of plain engines ({@code url=} workers), read from their Prometheus
 * {@code /metrics} ({@link VllmMetrics}, {@link SglangMetrics}) every {@link #INTERVAL} and handed
 * to the router as each rank's load report (requests running and waiting, KV blocks in use and in
 * all), as Dynamo's workers publish theirs.
 *
 * <p>The first scrape happens as the worker joins: a KV block size other than the model's is then
 * an error that keeps the worker out, since every prefix overlap would be zero (the complaint users
 * of KV routers make most); an engine that does not answer yet is scraped on, and a wrong block
 * size found later is logged as an error each minute.
 */
final class EngineMetrics implements WorkerEventSources {
  private static final Logger log = LoggerFactory.getLogger(EngineMetrics.class);

  /** How often each engine is scraped. */
  static final Duration INTERVAL = Duration.ofMillis(250);

  /** How long one scrape may take. */
  static final Duration TIMEOUT = Duration.ofSeconds(2);

  private final Vertx vertx;
  private final Router router;
  private final int blockSize;
  private final EngineTls tls;
  private final Map<String, Long> scraping = new ConcurrentHashMap<>();
  private final FaultLog mismatches = FaultLog.of(log, "engines with another KV block size");
  private HttpClient http; // made on the first plain engine; closed with this

  /**
   * @param blockSize the model's KV block size, which the engines' must equal
   */
  EngineMetrics(Vertx vertx, Router router, int blockSize, EngineTls tls) {
    this.tls = tls;
    this.vertx = vertx;
    this.router = router;
    this.blockSize = blockSize;
  }

  private synchronized HttpClient http() {
    if (http == null) {
      http =
          vertx
              .httpClientBuilder()
              .with(
                  EngineTlsOptions.apply(
                      new HttpClientOptions().setConnectTimeout((int) TIMEOUT.toMillis()), tls))
              .build();
    }
    return http;
  }

  /**
   * Scrapes the worker once now (blocking: the caller is a worker-set thread), then every {@link
   * #INTERVAL}.
   *
   * @throws IllegalArgumentException when the engine's KV block size is not the model's
   */
  @Override
  public void follow(WorkerSpec worker, WorkerEndpoint endpoint) {
    if (!worker.isHttp()) {
      return;
    }
    String metrics = endpoint.url().toString().replaceAll("/+$", "") + "/metrics";
    try {
      Map<Integer, VllmMetrics.Engine> engines =
          scrape(worker, metrics)
              .toCompletionStage()
              .toCompletableFuture()
              .get(TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
      String wrong = blockSizeMismatch(worker, engines);
      if (wrong != null) {
        throw new IllegalArgumentException(wrong);
      }
      report(worker, engines);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (ExecutionException | TimeoutException e) {
      log.info(
          "worker {}: {} does not answer yet ({}); scraping on",
          worker.id(),
          metrics,
          e.toString());
    }
    scraping.put(
        worker.id(),
        vertx.setPeriodic(INTERVAL.toMillis(), id -> scrapeAndReport(worker, metrics)));
  }

  private void scrapeAndReport(WorkerSpec worker, String metrics) {
    scrape(worker, metrics)
        .onSuccess(
            engines -> {
              String wrong = blockSizeMismatch(worker, engines);
              if (wrong != null) {
                mismatches.fault(wrong);
              } else if (scraping.containsKey(worker.id())) {
                report(worker, engines);
              }
            })
        .onFailure(e -> log.debug("worker {}: scraping {} failed", worker.id(), metrics, e));
  }

  private Future<Map<Integer, VllmMetrics.Engine>> scrape(WorkerSpec worker, String metrics) {
    return http()
        .request(
            new RequestOptions()
                .setMethod(HttpMethod.GET)
                .setAbsoluteURI(metrics)
                .setIdleTimeout(TIMEOUT.toMillis()))
        // the body is read in the callback that delivers the answer (see HttpRequestPlane#send)
        .compose(
            request ->
                request
                    .send()
                    .compose(
                        response ->
                            response
                                .body()
                                .map(
                                    body -> {
                                      if (response.statusCode() != 200) {
                                        throw new IllegalStateException(
                                            metrics + " answered HTTP " + response.statusCode());
                                      }
                                      String text = body.toString();
                                      return worker.engine() == PlainEngine.SGLANG
                                          ? SglangMetrics.parse(text)
                                          : VllmMetrics.parse(text);
                                    })));
  }

  /** Why the engine's cache cannot be indexed with the model's block size, or null. */
  private String blockSizeMismatch(WorkerSpec worker, Map<Integer, VllmMetrics.Engine> engines) {
    for (VllmMetrics.Engine engine : engines.values()) {
      if (engine.blockSize().isPresent() && engine.blockSize().getAsInt() != blockSize) {
        return "worker "
            + worker.id()
            + " caches KV blocks of "
            + engine.blockSize().getAsInt()
            + " tokens (its /metrics), but the router hashes blocks of "
            + blockSize
            + " (--kv-cache-block-size): no prefix would ever match; start the router with"
            + " --kv-cache-block-size "
            + engine.blockSize().getAsInt()
            + " or the engine with "
            + (worker.engine() == PlainEngine.SGLANG ? "--page-size " : "--block-size ")
            + blockSize;
      }
    }
    return null;
  }

  /** Each of the worker's ranks' figures as its load report. */
  private void report(WorkerSpec worker, Map<Integer, VllmMetrics.Engine> engines) {
    engines.forEach(
        (rank, engine) -> {
          if (rank >= worker.dpSize()) {
            return;
          }
          long used = engine.usedBlocks().orElse(WorkerLoadReport.UNKNOWN);
          router.reportLoad(
              new WorkerLoadReport(
                  new WorkerRank(worker.id(), rank),
                  used,
                  WorkerLoadReport.UNKNOWN,
                  used,
                  engine.numGpuBlocks().orElse(WorkerLoadReport.UNKNOWN),
                  engine.waiting().orElse(WorkerLoadReport.UNKNOWN),
                  engine.running().orElse(WorkerLoadReport.UNKNOWN)));
        });
  }

  @Override
  public void unfollow(String workerId) {
    Long timer = scraping.remove(workerId);
    if (timer != null) {
      vertx.cancelTimer(timer);
    }
  }

  @Override
  public synchronized void close() {
    scraping.values().forEach(vertx::cancelTimer);
    scraping.clear();
    if (http != null) {
      http.close();
    }
  }
}
