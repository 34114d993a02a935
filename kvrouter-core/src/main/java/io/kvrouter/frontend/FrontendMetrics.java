package io.kvrouter.frontend;

import static io.kvrouter.metrics.MetricNames.*;

import io.kvrouter.common.Ticker;
import io.kvrouter.metrics.Metrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Dynamo's frontend metrics for one model: requests by endpoint, type and outcome, requests in
 * flight, and histograms of time to first token, inter-token latency, sequence lengths and request
 * duration, with Dynamo's bucket ranges.
 */
public final class FrontendMetrics {
  private final MeterRegistry registry;
  private final String model;
  private final AtomicInteger inflight = new AtomicInteger();
  private final Map<String, Counter> requests = new ConcurrentHashMap<>();
  private final Counter disconnected;
  private final Counter outputTokens;
  private final DistributionSummary timeToFirstToken;
  private final DistributionSummary interTokenLatency;
  private final DistributionSummary inputTokens;
  private final DistributionSummary outputSequenceTokens;
  private final DistributionSummary duration;
  private final Ticker ticker;

  /**
   * @param ticker where the request's times are read
   */
  public FrontendMetrics(Metrics metrics, String model, int kvCacheBlockSize, Ticker ticker) {
    this.registry = metrics.registry();
    this.model = model;
    this.ticker = ticker;
    Gauge.builder(INFLIGHT_REQUESTS, inflight, AtomicInteger::get)
        .description("Requests being served")
        .tag("model", model)
        .register(registry);
    Gauge.builder(MODEL_KV_CACHE_BLOCK_SIZE, () -> kvCacheBlockSize)
        .description("Tokens per KV cache block")
        .tag("model", model)
        .register(registry);
    disconnected =
        Counter.builder(DISCONNECTED_CLIENTS)
            .description("Clients that went away before their response ended")
            .register(registry);
    outputTokens =
        Counter.builder(OUTPUT_TOKENS)
            .description("Tokens generated")
            .tag("model", model)
            .register(registry);
    timeToFirstToken =
        metrics.histogram(
            TIME_TO_FIRST_TOKEN,
            "Time to first token",
            Metrics.exponentialBuckets(0.001, 2, 20),
            "model",
            model);
    interTokenLatency =
        metrics.histogram(
            INTER_TOKEN_LATENCY,
            "Time between tokens",
            Metrics.exponentialBuckets(0.001, 2, 12),
            "model",
            model);
    inputTokens =
        metrics.histogram(
            INPUT_SEQUENCE_TOKENS,
            "Prompt length in tokens",
            Metrics.exponentialBuckets(16, 2, 14),
            "model",
            model);
    outputSequenceTokens =
        metrics.histogram(
            OUTPUT_SEQUENCE_TOKENS,
            "Generated length in tokens",
            Metrics.exponentialBuckets(1, 2, 16),
            "model",
            model);
    duration =
        metrics.histogram(
            REQUEST_DURATION,
            "Request duration",
            Metrics.exponentialBuckets(1, 2, 9),
            "model",
            model);
  }

  int inflight() {
    return inflight.get();
  }

  /** Starts tracking one request. */
  RequestTracker start(String endpoint, boolean stream) {
    inflight.incrementAndGet();
    return new RequestTracker(this, endpoint, stream ? "stream" : "unary", ticker.nanos());
  }

  /** The observations of one request, made from the HTTP and the worker's event loops. */
  static final class RequestTracker {
    private final FrontendMetrics metrics;
    private final String endpoint;
    private final String requestType;
    private final long startNanos;
    private long lastTokenNanos;
    private int tokens;
    private boolean done;

    private RequestTracker(
        FrontendMetrics metrics, String endpoint, String requestType, long startNanos) {
      this.metrics = metrics;
      this.endpoint = endpoint;
      this.requestType = requestType;
      this.startNanos = startNanos;
    }

    synchronized void promptTokens(int count) {
      metrics.inputTokens.record(count);
    }

    synchronized void tokens(int count) {
      if (count <= 0) {
        return;
      }
      long now = metrics.ticker.nanos();
      if (tokens == 0) {
        metrics.timeToFirstToken.record((now - startNanos) / 1e9);
      } else {
        metrics.interTokenLatency.record((now - lastTokenNanos) / 1e9 / count);
      }
      lastTokenNanos = now;
      tokens += count;
      metrics.outputTokens.increment(count);
    }

    synchronized void disconnected() {
      metrics.disconnected.increment();
    }

    /** Ends the request; later calls are ignored. */
    synchronized void finish(boolean success) {
      if (done) {
        return;
      }
      done = true;
      metrics.inflight.decrementAndGet();
      metrics.duration.record((metrics.ticker.nanos() - startNanos) / 1e9);
      if (tokens > 0) {
        metrics.outputSequenceTokens.record(tokens);
      }
      String status = success ? "success" : "error";
      metrics
          .requests
          .computeIfAbsent(
              endpoint + '|' + requestType + '|' + status,
              key ->
                  Counter.builder(REQUESTS)
                      .description("Requests by endpoint, type and outcome")
                      .tag("model", metrics.model)
                      .tag("endpoint", endpoint)
                      .tag("request_type", requestType)
                      .tag("status", status)
                      .register(metrics.registry))
          .increment();
    }
  }
}
