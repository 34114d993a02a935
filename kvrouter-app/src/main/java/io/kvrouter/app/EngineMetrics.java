package io.kvrouter.app;

import io.kvrouter.common.FaultLog;
import io.kvrouter.config.WorkerSpec;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerLoadReport;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.vllm.VllmMetrics;
import io.kvrouter.routing.Router;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The load and KV capacity of plain engines ({@code url=} workers), read from their Prometheus
 * {@code /metrics} ({@link VllmMetrics}) every {@link #INTERVAL} and handed to the router as each
 * rank's load report (requests running and waiting, KV blocks in use and in all), as Dynamo's
 * workers publish theirs.
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

  private final Router router;
  private final int blockSize;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(TIMEOUT).version(HttpClient.Version.HTTP_1_1).build();
  private final ScheduledExecutorService threads =
      Executors.newScheduledThreadPool(
          2,
          r -> {
            Thread t = new Thread(r, "engine-metrics");
            t.setDaemon(true);
            return t;
          });
  private final Map<String, ScheduledFuture<?>> scraping = new ConcurrentHashMap<>();
  private final FaultLog mismatches = FaultLog.of(log, "engines with another KV block size");

  /**
   * @param blockSize the model's KV block size, which the engines' must equal
   */
  EngineMetrics(Router router, int blockSize) {
    this.router = router;
    this.blockSize = blockSize;
  }

  @Override
  public void follow(WorkerSpec worker, WorkerEndpoint endpoint) {
    if (!worker.isHttp()) {
      return;
    }
    URI metrics = URI.create(endpoint.url().toString().replaceAll("/+$", "") + "/metrics");
    try {
      Map<Integer, VllmMetrics.Engine> engines = scrape(metrics);
      String wrong = blockSizeMismatch(worker, engines);
      if (wrong != null) {
        throw new IllegalArgumentException(wrong);
      }
      report(worker, engines);
    } catch (IOException e) {
      log.info(
          "worker {}: {} does not answer yet ({}); scraping on",
          worker.id(),
          metrics,
          e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    scraping.put(
        worker.id(),
        threads.scheduleWithFixedDelay(
            () -> scrapeAndReport(worker, metrics),
            INTERVAL.toMillis(),
            INTERVAL.toMillis(),
            TimeUnit.MILLISECONDS));
  }

  private void scrapeAndReport(WorkerSpec worker, URI metrics) {
    try {
      Map<Integer, VllmMetrics.Engine> engines = scrape(metrics);
      String wrong = blockSizeMismatch(worker, engines);
      if (wrong != null) {
        mismatches.fault(wrong);
        return;
      }
      report(worker, engines);
    } catch (IOException | RuntimeException e) {
      log.debug("worker {}: scraping {} failed", worker.id(), metrics, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private Map<Integer, VllmMetrics.Engine> scrape(URI metrics)
      throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(metrics).timeout(TIMEOUT).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException(metrics + " answered HTTP " + response.statusCode());
    }
    return VllmMetrics.parse(response.body());
  }

  /** Why the engine's cache cannot be indexed with the model's block size, or null. */
  private String blockSizeMismatch(WorkerSpec worker, Map<Integer, VllmMetrics.Engine> engines) {
    for (VllmMetrics.Engine engine : engines.values()) {
      if (engine.blockSize().isPresent() && engine.blockSize().getAsInt() != blockSize) {
        return "worker "
            + worker.id()
            + " caches KV blocks of "
            + engine.blockSize().getAsInt()
            + " tokens (vllm:cache_config_info block_size), but the router hashes blocks of "
            + blockSize
            + " (--kv-cache-block-size): no prefix would ever match; start the router with"
            + " --kv-cache-block-size "
            + engine.blockSize().getAsInt()
            + " or the engine with --block-size "
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
    ScheduledFuture<?> task = scraping.remove(workerId);
    if (task != null) {
      task.cancel(false);
    }
  }

  @Override
  public void close() {
    threads.shutdownNow();
  }
}
