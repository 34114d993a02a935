package io.kvrouter.sim;

import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.InferenceEngine;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.ResponseStream;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A simulated inference engine: for each request it streams pseudo-random token ids, the same
 * ones for the same request, after a fixed time to first token and with a fixed delay between
 * tokens. It honours {@code max_tokens}, stop and end-of-sequence token ids, and cancellation.
 * (A KV cache and a timing model come later; this engine only paces output.)
 */
public final class SimulatedEngine implements InferenceEngine {

  /**
   * @param vocabulary the token ids output is drawn from
   * @param timeToFirstToken delay before the first token
   * @param interTokenLatency delay between tokens; zero streams every token at once
   */
  public record Options(int[] vocabulary, Duration timeToFirstToken, Duration interTokenLatency) {
    public Options {
      Objects.requireNonNull(vocabulary, "vocabulary");
      if (vocabulary.length == 0) {
        throw new IllegalArgumentException("empty vocabulary");
      }
      Objects.requireNonNull(timeToFirstToken, "timeToFirstToken");
      Objects.requireNonNull(interTokenLatency, "interTokenLatency");
    }
  }

  private final Vertx vertx;
  private final Options options;
  private final AtomicInteger active = new AtomicInteger();
  private final Counter requests;
  private final Counter cancelled;

  /**
   * @param tags identify this engine's meters, e.g. {@code model} and, when several engines share
   *     a registry, {@code worker}
   */
  public SimulatedEngine(Vertx vertx, Options options, MeterRegistry registry, Tags tags) {
    this.vertx = vertx;
    this.options = options;
    this.requests =
        Counter.builder(MetricNames.COMPONENT_REQUESTS)
            .description("Requests this worker accepted")
            .tags(tags)
            .register(registry);
    this.cancelled =
        Counter.builder(MetricNames.COMPONENT_CANCELLED_REQUESTS)
            .description("Requests this worker stopped because they were cancelled")
            .tags(tags)
            .register(registry);
    Gauge.builder(MetricNames.COMPONENT_INFLIGHT_REQUESTS, active, AtomicInteger::get)
        .description("Requests this worker is generating for")
        .tags(tags)
        .register(registry);
  }

  @Override
  public ResponseStream generate(String requestId, PreprocessedRequest request) {
    requests.increment();
    return new SimulatedStream(vertx, options, request, this);
  }

  /** Requests being generated right now. */
  public int activeRequests() {
    return active.get();
  }

  /** Requests stopped early by cancellation since start. */
  public long cancelledRequests() {
    return (long) cancelled.count();
  }

  void started() {
    active.incrementAndGet();
  }

  void ended(boolean wasCancelled) {
    active.decrementAndGet();
    if (wasCancelled) {
      cancelled.increment();
    }
  }
}
