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
import io.kvrouter.protocol.vllm.VllmEvent.BlockRemoved;
import io.kvrouter.protocol.vllm.VllmEvent.BlockStored;
import io.kvrouter.testing.CollectingSubscriber;
import io.kvrouter.worker.engine.RequestTooLargeException;
import io.kvrouter.worker.kv.EventReplay;
import io.kvrouter.worker.kv.KvCacheSnapshot;
import io.kvrouter.worker.kv.VllmBlockHasher;
import io.kvrouter.worker.kv.VllmEvents;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SimulatedEngineTest {
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close();
  }

  private SimulatedEngine engine(int itlMillis) {
    return engine(itlMillis, 16, 16384);
  }

  private SimulatedEngine engine(int itlMillis, int blockSize, int kvBlocks) {
    return new SimulatedEngine(
        vertx,
        new SimulatedEngine.Options(
            Vocabularies.demo(), Duration.ZERO, Duration.ofMillis(itlMillis), blockSize, kvBlocks),
        new SimpleMeterRegistry(),
        Tags.of("model", "m"),
        Ticker.SYSTEM);
  }

  private static PreprocessedRequest prompt(int maxTokens, int... tokens) {
    return request(tokens, new StopConditions(maxTokens, null, null, null, null), null);
  }

  private static int[] range(int from, int to) {
    return IntStream.range(from, to).toArray();
  }

  private static int[] concat(int[] a, int[] b) {
    int[] all = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  private static long hash(int[] tokens, int blockSize, int block) {
    return new VllmBlockHasher(blockSize).hashBlocks(tokens).get(block).value();
  }

  private static PreprocessedRequest request(int[] prompt, StopConditions stop, Long seed) {
    return new PreprocessedRequest(
        "m",
        prompt,
        stop,
        new SamplingOptions(null, seed, null, null, null, null, null, null, null),
        null,
        null,
        null);
  }

  private CollectingSubscriber run(SimulatedEngine engine, PreprocessedRequest request)
      throws Exception {
    CollectingSubscriber subscriber = new CollectingSubscriber();
    ResponseStream stream = engine.generate("r", request);
    vertx.runOnContext(v -> stream.subscribe(subscriber));
    subscriber.done.get(10, TimeUnit.SECONDS);
    return subscriber;
  }

  @Test
  void sameRequest_sameTokens_andMaxTokensEndsWithLength() throws Exception {
    SimulatedEngine engine = engine(0);
    PreprocessedRequest request =
        request(new int[] {1, 2, 3}, new StopConditions(20, null, null, null, null), null);
    CollectingSubscriber first = run(engine, request);
    CollectingSubscriber second = run(engine, request);

    assertThat(first.done.get()).isNull();
    assertThat(first.tokens()).hasSize(20).isEqualTo(second.tokens());
    assertThat(first.outputs.get(first.outputs.size() - 1).finishReason())
        .isEqualTo(FinishReason.LENGTH);
    assertThat(java.util.Arrays.stream(first.tokens()).boxed().toList())
        .allMatch(t -> t == ' ' || (t >= 'a' && t <= 'z'));

    CollectingSubscriber other =
        run(
            engine,
            request(new int[] {9, 9}, new StopConditions(20, null, null, null, null), null));
    assertThat(other.tokens()).isNotEqualTo(first.tokens());
    assertThat(engine.activeRequests()).isZero();
  }

  @Test
  void withoutMaxTokens_endsWithEosAfterADeterministicLength() throws Exception {
    CollectingSubscriber result = run(engine(0), request(new int[] {5}, null, 42L));
    assertThat(result.tokens().length).isBetween(16, 64);
    assertThat(result.outputs.get(result.outputs.size() - 1).finishReason())
        .isEqualTo(FinishReason.EOS);
  }

  @Test
  void stopTokenId_endsWithStopAndIsNotEmitted() throws Exception {
    PreprocessedRequest request =
        request(new int[] {7}, new StopConditions(500, null, List.of((int) ' '), null, null), 1L);
    CollectingSubscriber result = run(engine(0), request);
    assertThat(result.tokens()).doesNotContain((int) ' ').isNotEmpty();
    assertThat(result.outputs.get(result.outputs.size() - 1).finishReason())
        .isEqualTo(FinishReason.STOP);
  }

  @Test
  void cancel_stopsTheStreamAndFreesTheRequest() throws Exception {
    SimulatedEngine engine = engine(5);
    CollectingSubscriber subscriber = new CollectingSubscriber();
    ResponseStream stream =
        engine.generate(
            "r", request(new int[] {1}, new StopConditions(100_000, null, null, null, null), null));
    vertx.runOnContext(v -> stream.subscribe(subscriber));
    org.awaitility.Awaitility.await().until(() -> subscriber.outputs.size() >= 3);
    assertThat(engine.activeRequests()).isEqualTo(1);

    stream.cancel();

    assertThat(subscriber.done.get(10, TimeUnit.SECONDS))
        .isInstanceOf(RequestCancelledException.class);
    assertThat(engine.activeRequests()).isZero();
    assertThat(engine.cancelledRequests()).isEqualTo(1);
  }

  @Test
  void pause_holdsOutputUntilResume() throws Exception {
    SimulatedEngine engine = engine(0);
    ResponseStream stream =
        engine.generate(
            "r", request(new int[] {1}, new StopConditions(50, null, null, null, null), null));
    java.util.concurrent.CompletableFuture<io.vertx.core.Context> streamContext =
        new java.util.concurrent.CompletableFuture<>();
    CollectingSubscriber subscriber =
        new CollectingSubscriber(
            count -> {
              if (count == 10) {
                stream.pause();
                streamContext.complete(Vertx.currentContext());
              }
            });
    vertx.runOnContext(v -> stream.subscribe(subscriber));
    // All 50 tokens fit in one burst, so without the pause they would all be out by the time a
    // task queued on the stream's own event loop runs.
    java.util.concurrent.CompletableFuture<Integer> seen =
        new java.util.concurrent.CompletableFuture<>();
    streamContext
        .get(10, TimeUnit.SECONDS)
        .runOnContext(v -> seen.complete(subscriber.outputs.size()));
    assertThat(seen.get(10, TimeUnit.SECONDS)).isEqualTo(10);
    assertThat(subscriber.done).isNotDone();

    stream.resume();
    assertThat(subscriber.done.get(10, TimeUnit.SECONDS)).isNull();
    assertThat(subscriber.tokens()).hasSize(50);
  }

  @Test
  void hugeMaxTokensWithoutDelay_givesTheEventLoopBackBetweenBursts() throws Exception {
    SimulatedEngine engine = engine(0);
    ResponseStream stream =
        engine.generate(
            "r",
            request(new int[] {1}, new StopConditions(1_000_000, null, null, null, null), null));
    java.util.concurrent.CompletableFuture<Integer> seenBetween =
        new java.util.concurrent.CompletableFuture<>();
    CollectingSubscriber[] collected = new CollectingSubscriber[1];
    collected[0] =
        new CollectingSubscriber(
            count -> {
              if (count == 1) {
                // queued now, this task runs as soon as the engine yields the event loop
                Vertx.currentContext()
                    .runOnContext(
                        v -> {
                          seenBetween.complete(collected[0].outputs.size());
                          stream.cancel();
                        });
              }
            });
    CollectingSubscriber subscriber = collected[0];
    vertx.runOnContext(v -> stream.subscribe(subscriber));
    assertThat(seenBetween.get(10, TimeUnit.SECONDS)).isEqualTo(SimulatedStream.BURST);
    assertThat(subscriber.done.get(10, TimeUnit.SECONDS))
        .isInstanceOf(RequestCancelledException.class);
  }

  @Test
  void twoRequestsSharingAPrefix_storeThePrefixOnce_andTheSecondOnlyItsTail() throws Exception {
    SimulatedEngine engine = engine(0, 4, 64);
    List<List<VllmEvent>> events = new CopyOnWriteArrayList<>();
    EventReplay replay = new EventReplay(engine.kvCache().subscribe(new VllmEvents(events::add)));
    int[] first = range(0, 10); // two full blocks and two tokens
    int[] second = concat(range(0, 8), new int[] {100, 101, 102, 103});

    run(engine, prompt(1, first)); // the only output token is the last: never cached
    run(engine, prompt(1, second));

    assertThat(events)
        .containsExactly(
            List.of(
                BlockStored.of(
                    List.of(hash(first, 4, 0), hash(first, 4, 1)), null, range(0, 8), 4)),
            List.of(
                BlockStored.of(
                    List.of(hash(second, 4, 2)),
                    hash(first, 4, 1),
                    new int[] {100, 101, 102, 103},
                    4)));
    events.forEach(replay::apply);
    KvCacheSnapshot snapshot = engine.kvCache().snapshot();
    replay.assertMatches(snapshot);
    assertThat(snapshot.activeBlocks()).isZero();
    assertThat(snapshot.inactiveBlocks()).isEqualTo(3);
  }

  @Test
  void outputBlocks_areCachedAsTheyFill_chainedToThePrompt() throws Exception {
    SimulatedEngine engine = engine(0, 4, 64);
    List<List<VllmEvent>> events = new CopyOnWriteArrayList<>();
    engine.kvCache().subscribe(new VllmEvents(events::add));
    int[] prompt = range(0, 4);

    int[] output = run(engine, prompt(9, prompt)).tokens();

    // the 9th token ends the sequence, so its KV is never computed: 4 + 8 tokens, 3 blocks
    int[] sequence = concat(prompt, Arrays.copyOf(output, 8));
    assertThat(events)
        .containsExactly(
            List.of(BlockStored.of(List.of(hash(sequence, 4, 0)), null, prompt, 4)),
            List.of(
                BlockStored.of(
                    List.of(hash(sequence, 4, 1)),
                    hash(sequence, 4, 0),
                    Arrays.copyOfRange(output, 0, 4),
                    4)),
            List.of(
                BlockStored.of(
                    List.of(hash(sequence, 4, 2)),
                    hash(sequence, 4, 1),
                    Arrays.copyOfRange(output, 4, 8),
                    4)));
    assertThat(engine.kvCache().snapshot().evictionOrder())
        .containsExactly(hash(sequence, 4, 2), hash(sequence, 4, 1), hash(sequence, 4, 0));
  }

  @Test
  void smallCache_evictsTheLeastRecentlyUsedBlock_withBlockRemoved() throws Exception {
    SimulatedEngine engine = engine(0, 4, 3);
    List<List<VllmEvent>> events = new CopyOnWriteArrayList<>();
    engine.kvCache().subscribe(new VllmEvents(events::add));
    int[] first = range(0, 8);
    int[] second = range(50, 58);

    run(engine, prompt(1, first));
    run(engine, prompt(1, second));

    assertThat(events).hasSize(2);
    assertThat(events.get(1))
        .containsExactly(
            BlockRemoved.of(List.of(hash(first, 4, 1))), // the tail goes first
            BlockStored.of(List.of(hash(second, 4, 0), hash(second, 4, 1)), null, second, 4));
    assertThat(engine.kvCache().snapshot().hashes())
        .containsExactlyInAnyOrder(hash(first, 4, 0), hash(second, 4, 0), hash(second, 4, 1));
  }

  @Test
  void promptLargerThanTheWholeCache_isRefusedAsNeverFitting_andHoldsNothing() {
    SimulatedEngine engine = engine(0, 4, 2);

    // three full blocks of 4 tokens, in a cache of two: no eviction could ever make room
    assertThatThrownBy(() -> engine.generate("big", prompt(1, range(0, 12))))
        .isInstanceOf(RequestTooLargeException.class)
        .hasMessage(KvCapacityRefusal.message(12, 8));

    assertThat(engine.kvCache().snapshot().blocks()).isEmpty();
    assertThat(engine.activeRequests()).isZero();
  }

  @Test
  void runningRequestsBlocks_areNotEvicted_soANewPromptIsRefusedUntilTheyEnd() throws Exception {
    SimulatedEngine engine = engine(5, 4, 2);
    ResponseStream running = engine.generate("r", prompt(100_000, range(0, 8)));
    CollectingSubscriber subscriber = new CollectingSubscriber();
    vertx.runOnContext(v -> running.subscribe(subscriber));

    assertThatThrownBy(() -> engine.generate("other", prompt(1, range(50, 54))))
        .isInstanceOf(KvCacheFullException.class)
        .hasMessage("KV cache full: 1 blocks needed, 0 free");

    running.cancel();
    subscriber.done.get(10, TimeUnit.SECONDS);
    assertThat(engine.kvCache().snapshot().activeBlocks()).isZero();
    assertThat(run(engine, prompt(1, range(50, 54))).done.get()).isNull();
  }

  @Test
  void cancelBeforeSubscribe_releasesTheBlocks() {
    SimulatedEngine engine = engine(0, 4, 2);
    ResponseStream stream = engine.generate("r", prompt(5, range(0, 8)));
    assertThat(engine.kvCache().snapshot().activeBlocks()).isEqualTo(2);

    stream.cancel();

    org.awaitility.Awaitility.await().until(() -> engine.kvCache().snapshot().activeBlocks() == 0);
  }
}
