package io.kvrouter.worker;

import io.kvrouter.common.Ticker;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.InferenceEngine;
import io.kvrouter.protocol.KvCapacityRefusal;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.vllm.VllmCacheSalt;
import io.kvrouter.worker.engine.EngineSettings;
import io.kvrouter.worker.engine.RequestTooLargeException;
import io.kvrouter.worker.kv.BlockPool;
import io.kvrouter.worker.kv.KvAllocation;
import io.kvrouter.worker.kv.VllmSequence;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A simulated inference engine: for each request it streams pseudo-random token ids, the same ones
 * for the same request, after a fixed time to first token and with a fixed delay between tokens. It
 * honours {@code max_tokens}, stop and end-of-sequence token ids, and cancellation.
 *
 * <p>It keeps a real KV cache ({@link BlockPool}, its blocks named by vLLM's hashes of their
 * tokens: {@link VllmSequence}) so that what it publishes as KV events is the truth about what it
 * caches. Each block the output fills is cached once the next step would have computed it (as in
 * vLLM, the final token never reaches the cache).
 *
 * <p>Its pace is either fixed (a time to first token, then a delay between tokens) or, with {@link
 * Options#scheduler}, the simulator's: requests queue in an {@link
 * io.kvrouter.worker.engine.EngineCore} that batches them in steps timed by Dynamo mocker's model,
 * so time to first token grows with the uncached prompt and the queue, as the simulator predicts.
 *
 * <ul>
 *   <li>With fixed pacing, {@code generate()} holds the prompt's full blocks at once, or refuses
 *       the request with {@link KvCacheFullException} when they do not fit; the request's blocks
 *       are released when it completes, fails or is cancelled.
 *   <li>With the scheduler, the scheduler is the cache's only user: it admits a waiting request
 *       when its prompt's blocks fit under the watermark (a request that does not fit now waits, as
 *       in vLLM; one that could never fit is refused with {@link RequestTooLargeException}), caches
 *       blocks as its steps compute them, preempts when the cache runs out and releases a request's
 *       blocks when it ends. The published events are the scheduler's cache.
 * </ul>
 */
public final class SimulatedEngine implements InferenceEngine {

  /**
   * @param vocabulary the token ids output is drawn from
   * @param timeToFirstToken delay before the first token
   * @param interTokenLatency delay between tokens; zero streams every token at once
   * @param blockSize tokens per KV block (vLLM's {@code --block-size})
   * @param kvBlocks KV cache capacity in blocks (vLLM's and the mocker's {@code num_gpu_blocks})
   * @param scheduler the timing model and scheduler limits that pace requests instead of the fixed
   *     delays, or null for fixed delays; its block size and capacity are {@code blockSize} and
   *     {@code kvBlocks}
   */
  public record Options(
      int[] vocabulary,
      Duration timeToFirstToken,
      Duration interTokenLatency,
      int blockSize,
      int kvBlocks,
      EngineSettings scheduler) {

    /** Options with fixed delays. */
    public Options(
        int[] vocabulary,
        Duration timeToFirstToken,
        Duration interTokenLatency,
        int blockSize,
        int kvBlocks) {
      this(vocabulary, timeToFirstToken, interTokenLatency, blockSize, kvBlocks, null);
    }

    public Options {
      Objects.requireNonNull(vocabulary, "vocabulary");
      if (vocabulary.length == 0) {
        throw new IllegalArgumentException("empty vocabulary");
      }
      Objects.requireNonNull(timeToFirstToken, "timeToFirstToken");
      Objects.requireNonNull(interTokenLatency, "interTokenLatency");
      if (blockSize < 1) {
        throw new IllegalArgumentException("blockSize must be >= 1: " + blockSize);
      }
      if (kvBlocks < 1) {
        throw new IllegalArgumentException("kvBlocks must be >= 1: " + kvBlocks);
      }
      if (scheduler != null
          && (scheduler.blockSize() != blockSize || scheduler.numGpuBlocks() != kvBlocks)) {
        throw new IllegalArgumentException(
            "the scheduler's block size and capacity must be the engine's: " + scheduler);
      }
    }
  }

  private final Vertx vertx;
  private final Options options;
  private final VocabularyOdds odds;
  private final BlockPool kvCache;

  /** Paces requests with the timing model; null for fixed delays. */
  private final EngineDriver driver;

  /** Makes the cache's request keys unique even if two callers reuse a request id. */
  private final AtomicLong serial = new AtomicLong();

  private final AtomicInteger active = new AtomicInteger();
  private final Counter requests;
  private final Counter cancelled;

  /**
   * @param tags identify this engine's meters, e.g. {@code model} and, when several engines share a
   *     registry, {@code worker}
   * @param ticker where the timing model's steps are timed: the clock Vert.x's timers run on
   *     ({@link Ticker#SYSTEM})
   */
  public SimulatedEngine(
      Vertx vertx, Options options, MeterRegistry registry, Tags tags, Ticker ticker) {
    this.vertx = vertx;
    this.options = options;
    this.odds = new VocabularyOdds(options.vocabulary());
    this.kvCache = new BlockPool(options.kvBlocks(), options.blockSize());
    this.driver =
        options.scheduler() == null
            ? null
            : new EngineDriver(vertx, options.scheduler(), kvCache, ticker);
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

  /**
   * Returns the stream that generates the output. With fixed pacing it holds the prompt's KV blocks
   * first, released when the stream ends, or when it is cancelled, even before it is subscribed;
   * with the scheduler the request queues for admission once subscribed.
   *
   * @throws KvCacheFullException with fixed pacing, if the prompt's blocks do not fit in the cache
   *     now
   * @throws RequestTooLargeException if the request could never fit: with fixed pacing, its
   *     prompt's blocks are more than the cache holds; with the scheduler, its prompt and most
   *     output are more than it ever admits. The message is a {@link KvCapacityRefusal}, which the
   *     router recognises
   * @throws IllegalArgumentException with the scheduler, if the prompt is empty or {@code
   *     max_tokens} is below 1 (vLLM refuses both)
   */
  @Override
  public ResponseStream generate(String requestId, PreprocessedRequest request) {
    Integer maxTokens = request.stopConditions().maxTokens();
    if (driver != null) {
      checkSchedulable(request, maxTokens);
    }
    String kvKey = requestId + "#" + serial.incrementAndGet();
    // as Dynamo's vLLM handler passes a namespace on: the tagged salt vLLM hashes into block 0
    VllmSequence blocks =
        new VllmSequence(
            options.blockSize(),
            request.tokenIds(),
            request.cacheSalt().map(VllmCacheSalt::engineSalt).orElse(null));
    if (driver == null) {
      if (blocks.fullBlocks() > options.kvBlocks()) {
        throw new RequestTooLargeException(
            KvCapacityRefusal.message(
                request.tokenIds().length, (long) options.kvBlocks() * options.blockSize()));
      }
      KvAllocation allocation = kvCache.allocate(kvKey, blocks, blocks.fullBlocks());
      if (!allocation.allocated()) {
        throw new KvCacheFullException(allocation);
      }
    }
    requests.increment();
    return new SimulatedStream(vertx, options, request, this, kvKey, blocks, driver);
  }

  private void checkSchedulable(PreprocessedRequest request, Integer maxTokens) {
    if (request.tokenIds().length == 0) {
      throw new IllegalArgumentException("the prompt is empty");
    }
    if (maxTokens != null && maxTokens < 1) {
      throw new IllegalArgumentException("max_tokens must be >= 1, got " + maxTokens);
    }
    int mostOutput = maxTokens != null ? maxTokens : TokenSequence.MAX_DEFAULT_LENGTH;
    if (!options.scheduler().fits(request.tokenIds().length, mostOutput)) {
      throw new RequestTooLargeException(
          KvCapacityRefusal.message(
              (long) request.tokenIds().length + mostOutput,
              (long) options.scheduler().admissionLimit() * options.blockSize()));
    }
  }

  /** What this engine runs with: its vocabulary, pace and KV cache. */
  public Options options() {
    return options;
  }

  /** The log-probabilities of this engine's draw, counted once for all its requests. */
  VocabularyOdds odds() {
    return odds;
  }

  /**
   * This engine's KV cache: its {@link BlockPool#snapshot() snapshot} and {@link
   * BlockPool#subscribe changes} (in vLLM's format through {@link
   * io.kvrouter.worker.kv.VllmEvents}) are what a KV event publisher for this worker sends.
   */
  public BlockPool kvCache() {
    return kvCache;
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
