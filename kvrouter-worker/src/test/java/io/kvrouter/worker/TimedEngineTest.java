package io.kvrouter.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.common.Ticker;
import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.KvCapacityRefusal;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.PreprocessedRequest.SamplingOptions;
import io.kvrouter.protocol.PreprocessedRequest.StopConditions;
import io.kvrouter.protocol.RequestCancelledException;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.vllm.VllmEvent;
import io.kvrouter.protocol.vllm.VllmEvent.BlockStored;
import io.kvrouter.testing.CollectingSubscriber;
import io.kvrouter.worker.engine.EngineSettings;
import io.kvrouter.worker.engine.RequestTooLargeException;
import io.kvrouter.worker.engine.TimingModel;
import io.kvrouter.worker.kv.EventReplay;
import io.kvrouter.worker.kv.KvCacheSnapshot;
import io.kvrouter.worker.kv.VllmBlockHasher;
import io.kvrouter.worker.kv.VllmEvents;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A simulated engine paced by the mocker timing model, as {@code worker --timing-model mocker} runs
 * it: requests queue in the scheduler and get their tokens as its steps complete.
 */
class TimedEngineTest {
  private static final int BS = 16;
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close();
  }

  private SimulatedEngine engine(int maxNumSeqs, double speedup) {
    return engine(maxNumSeqs, speedup, 1000);
  }

  private SimulatedEngine engine(int maxNumSeqs, double speedup, int kvBlocks) {
    EngineSettings scheduler =
        new EngineSettings(BS, kvBlocks, maxNumSeqs, 8192, 0.01, new TimingModel(speedup));
    return new SimulatedEngine(
        vertx,
        new SimulatedEngine.Options(
            Vocabularies.demo(), Duration.ZERO, Duration.ZERO, BS, kvBlocks, scheduler),
        new SimpleMeterRegistry(),
        Tags.of("model", "m"),
        Ticker.SYSTEM);
  }

  private static PreprocessedRequest request(int promptTokens, Integer maxTokens) {
    return request(IntStream.range(0, promptTokens).map(i -> 'a' + i % 26).toArray(), maxTokens);
  }

  private static PreprocessedRequest request(int[] prompt, Integer maxTokens) {
    return new PreprocessedRequest(
        "m",
        prompt,
        new StopConditions(maxTokens, null, null, null, true),
        new SamplingOptions(null, 1L, null, null, null, null, null, null, null),
        null,
        null,
        null);
  }

  private CollectingSubscriber start(ResponseStream stream) {
    return start(stream, n -> {});
  }

  private CollectingSubscriber start(
      ResponseStream stream, java.util.function.IntConsumer afterEach) {
    CollectingSubscriber subscriber = new CollectingSubscriber(afterEach);
    vertx.runOnContext(v -> stream.subscribe(subscriber));
    return subscriber;
  }

  @Test
  void theFirstTokenComesNoSoonerThanTheModelsPrefillTime_andMaxTokensAreGenerated()
      throws Exception {
    SimulatedEngine engine = engine(8, 1.0);
    long[] firstTokenNanos = {0};
    long started = System.nanoTime();
    CollectingSubscriber subscriber =
        start(
            engine.generate("a", request(2048, 5)),
            n -> {
              if (firstTokenNanos[0] == 0) {
                firstTokenNanos[0] = System.nanoTime();
              }
            });
    subscriber.done.get(10, TimeUnit.SECONDS);
    double ttftMillis = (firstTokenNanos[0] - started) / 1e6;
    // 2,048 uncached tokens in one step: 4.209989e-7 * 2048^2 + 1.518344e-2 * 2048 + 16.50142
    assertThat(ttftMillis).isGreaterThanOrEqualTo(TimingModel.prefillMillis(2048));
    awaitIdle(engine); // the engine releases a request's blocks after its last token
  }

  @Test
  void withOneSequenceAtATimeTheSecondRequestWaitsForTheFirstToEnd() throws Exception {
    SimulatedEngine engine = engine(1, 20.0);
    java.util.List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
    CollectingSubscriber first = start(engine.generate("a", request(64, 10)), n -> order.add("a"));
    CollectingSubscriber second = start(engine.generate("b", request(64, 10)), n -> order.add("b"));
    second.done.get(10, TimeUnit.SECONDS);
    first.done.get(10, TimeUnit.SECONDS);
    assertThat(first.tokens()).hasSize(10);
    assertThat(second.tokens()).hasSize(10);
    assertThat(first.outputs.get(9).finishReason()).isEqualTo(FinishReason.LENGTH);
    assertThat(order)
        .containsExactly(
            "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "b", "b", "b", "b", "b", "b", "b",
            "b", "b", "b");
    assertThat(engine.activeRequests()).isZero();
  }

  @Test
  void aCancelledRequestLeavesTheQueueAndFreesItsBlocks() throws Exception {
    SimulatedEngine engine = engine(1, 20.0);
    CollectingSubscriber first = start(engine.generate("a", request(64, 50)));
    ResponseStream waiting = engine.generate("b", request(64, 50));
    CollectingSubscriber second = start(waiting);
    vertx.runOnContext(v -> waiting.cancel());
    assertThat(second.done.get(10, TimeUnit.SECONDS)).isInstanceOf(RequestCancelledException.class);
    assertThat(second.outputs).isEmpty();
    assertThat(first.done.get(10, TimeUnit.SECONDS)).isNull();
    assertThat(first.tokens()).hasSize(50);
    awaitIdle(engine); // the engine releases a request's blocks after its last token
  }

  /** Subscribes to {@code stream} paused, and waits until the engine has generated all of it. */
  private CollectingSubscriber pausedUntilTheEngineIsDone(
      SimulatedEngine engine, ResponseStream stream) {
    CollectingSubscriber subscriber = new CollectingSubscriber();
    vertx.runOnContext(
        v -> {
          stream.pause();
          stream.subscribe(subscriber);
        });
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> engine.activeRequests() == 0 && engine.kvCache().activeRequests() == 0);
    return subscriber;
  }

  @Test
  void tokensProducedWhilePausedArriveInOrderOnResume() throws Exception {
    SimulatedEngine engine = engine(8, 20.0);
    ResponseStream stream = engine.generate("a", request(64, 20));
    CollectingSubscriber subscriber = pausedUntilTheEngineIsDone(engine, stream);
    assertThat(subscriber.outputs).isEmpty();
    vertx.runOnContext(v -> stream.resume());
    assertThat(subscriber.done.get(10, TimeUnit.SECONDS)).isNull();
    CollectingSubscriber unpaused = start(engine.generate("b", request(64, 20)));
    unpaused.done.get(10, TimeUnit.SECONDS);
    assertThat(subscriber.tokens()).hasSize(20).isEqualTo(unpaused.tokens());
  }

  @Test
  void cancellingAfterTheEngineFinishedButBeforeDeliveryEndsTheStreamCancelled() throws Exception {
    SimulatedEngine engine = engine(8, 20.0);
    ResponseStream stream = engine.generate("a", request(64, 5));
    CollectingSubscriber subscriber = pausedUntilTheEngineIsDone(engine, stream);
    vertx.runOnContext(v -> stream.cancel());
    assertThat(subscriber.done.get(10, TimeUnit.SECONDS))
        .isInstanceOf(RequestCancelledException.class);
    assertThat(subscriber.outputs).isEmpty();
  }

  @Test
  void aRequestThatCanNeverFitIsRefusedAtOnce() {
    SimulatedEngine engine = engine(8, 1.0);
    assertThatThrownBy(() -> engine.generate("big", request(16 * 1000, 10)))
        .isInstanceOf(RequestTooLargeException.class)
        // the refusal the router recognises: 990 of 1000 blocks are admitted (watermark 0.01)
        .hasMessage(KvCapacityRefusal.message(16 * 1000 + 10, 990 * 16));
    // without max_tokens, the longest default output counts
    assertThatThrownBy(() -> engine.generate("big", request(16 * 990 - 10, null)))
        .isInstanceOf(RequestTooLargeException.class);
  }

  /** Waits until the engine has ended every request and its cache holds nothing for them. */
  private static void awaitIdle(SimulatedEngine engine) {
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> engine.activeRequests() == 0 && engine.kvCache().activeRequests() == 0);
  }

  /**
   * The published cache is the scheduler's: a request waiting for admission caches nothing, and
   * blocks are stored as the steps compute them (with one sequence at a time: the first request's
   * prompt, its two output blocks, then the second's prompt), named by vLLM's hashes.
   */
  @Test
  void thePublishedEventsAreTheSchedulersCache() throws Exception {
    SimulatedEngine engine = engine(1, 20.0);
    List<List<VllmEvent>> batches = new CopyOnWriteArrayList<>();
    KvCacheSnapshot start = engine.kvCache().subscribe(new VllmEvents(batches::add));
    int[] first = IntStream.range(0, 4 * BS).toArray();
    int[] second = IntStream.range(1000, 1000 + 4 * BS).toArray();

    // 40 tokens: the 39 before the last are computed, 64 + 39 = 103 tokens, two output blocks
    CollectingSubscriber a = start(engine.generate("a", request(first, 40)));
    CollectingSubscriber b = start(engine.generate("b", request(second, 10)));
    a.done.get(10, TimeUnit.SECONDS);
    b.done.get(10, TimeUnit.SECONDS);
    awaitIdle(engine);

    List<BlockStored> stored =
        batches.stream().flatMap(List::stream).map(BlockStored.class::cast).toList();
    assertThat(stored).hasSize(4);
    List<Long> firstHashes =
        new VllmBlockHasher(BS).hashBlocks(first).stream().map(h -> h.value()).toList();
    assertThat(stored.get(0).blockHashes()).isEqualTo(firstHashes);
    assertThat(stored.get(0).tokenIds()).isEqualTo(first);
    assertThat(stored.get(1).parentBlockHash()).isEqualTo(firstHashes.get(3));
    assertThat(stored.get(2).parentBlockHash()).isEqualTo(stored.get(1).blockHashes().get(0));
    assertThat(stored.get(3).tokenIds()).isEqualTo(second);
    assertThat(stored.get(3).parentBlockHash()).isNull();
    EventReplay replay = new EventReplay(start);
    batches.forEach(replay::apply);
    replay.assertMatches(engine.kvCache().snapshot());
  }

  @Test
  void aRequestThatDoesNotFitNowWaitsForRoom_insteadOfBeingRefused() throws Exception {
    // 10 blocks of 16; each prompt takes 8 and its output a ninth: one request at a time
    SimulatedEngine engine = engine(8, 20.0, 10);
    int[] first = IntStream.range(0, 8 * BS).toArray();
    int[] second = IntStream.range(1000, 1000 + 8 * BS).toArray();

    CollectingSubscriber a = start(engine.generate("a", request(first, 10)));
    CollectingSubscriber b = start(engine.generate("b", request(second, 10)));

    assertThat(a.done.get(10, TimeUnit.SECONDS)).isNull();
    assertThat(b.done.get(10, TimeUnit.SECONDS)).isNull();
    assertThat(a.tokens()).hasSize(10);
    assertThat(b.tokens()).hasSize(10);
    awaitIdle(engine);
  }

  @Test
  void anEmptyPromptIsRefused_asVllmRefusesIt() {
    SimulatedEngine engine = engine(8, 1.0);
    assertThatThrownBy(() -> engine.generate("empty", request(new int[0], 5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the prompt is empty");
  }
}
