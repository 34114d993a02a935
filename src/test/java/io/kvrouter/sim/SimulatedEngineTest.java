package io.kvrouter.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.PreprocessedRequest.SamplingOptions;
import io.kvrouter.protocol.PreprocessedRequest.StopConditions;
import io.kvrouter.protocol.RequestCancelledException;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.testing.CollectingSubscriber;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SimulatedEngineTest {
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close();
  }

  private SimulatedEngine engine(int itlMillis) {
    return new SimulatedEngine(
        vertx,
        new SimulatedEngine.Options(Vocabularies.demo(), Duration.ZERO, Duration.ofMillis(itlMillis)),
        new SimpleMeterRegistry(),
        Tags.of("model", "m"));
  }

  private static PreprocessedRequest request(int[] prompt, StopConditions stop, Long seed) {
    return new PreprocessedRequest(
        "m", prompt, stop, new SamplingOptions(null, seed, null, null, null, null, null, null, null),
        null, null, null);
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
    assertThat(first.outputs.get(first.outputs.size() - 1).finishReason()).isEqualTo(FinishReason.LENGTH);
    assertThat(java.util.Arrays.stream(first.tokens()).boxed().toList())
        .allMatch(t -> t == ' ' || (t >= 'a' && t <= 'z'));

    CollectingSubscriber other =
        run(engine, request(new int[] {9, 9}, new StopConditions(20, null, null, null, null), null));
    assertThat(other.tokens()).isNotEqualTo(first.tokens());
    assertThat(engine.activeRequests()).isZero();
  }

  @Test
  void withoutMaxTokens_endsWithEosAfterADeterministicLength() throws Exception {
    CollectingSubscriber result = run(engine(0), request(new int[] {5}, null, 42L));
    assertThat(result.tokens().length).isBetween(16, 64);
    assertThat(result.outputs.get(result.outputs.size() - 1).finishReason()).isEqualTo(FinishReason.EOS);
  }

  @Test
  void stopTokenId_endsWithStopAndIsNotEmitted() throws Exception {
    PreprocessedRequest request =
        request(new int[] {7}, new StopConditions(500, null, List.of((int) ' '), null, null), 1L);
    CollectingSubscriber result = run(engine(0), request);
    assertThat(result.tokens()).doesNotContain((int) ' ').isNotEmpty();
    assertThat(result.outputs.get(result.outputs.size() - 1).finishReason()).isEqualTo(FinishReason.STOP);
  }

  @Test
  void cancel_stopsTheStreamAndFreesTheRequest() throws Exception {
    SimulatedEngine engine = engine(5);
    CollectingSubscriber subscriber = new CollectingSubscriber();
    ResponseStream stream =
        engine.generate("r", request(new int[] {1}, new StopConditions(100_000, null, null, null, null), null));
    vertx.runOnContext(v -> stream.subscribe(subscriber));
    org.awaitility.Awaitility.await().until(() -> subscriber.outputs.size() >= 3);
    assertThat(engine.activeRequests()).isEqualTo(1);

    stream.cancel();

    assertThat(subscriber.done.get(10, TimeUnit.SECONDS)).isInstanceOf(RequestCancelledException.class);
    assertThat(engine.activeRequests()).isZero();
    assertThat(engine.cancelledRequests()).isEqualTo(1);
  }

  @Test
  void pause_holdsOutputUntilResume() throws Exception {
    SimulatedEngine engine = engine(0);
    ResponseStream stream =
        engine.generate("r", request(new int[] {1}, new StopConditions(50, null, null, null, null), null));
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
    java.util.concurrent.CompletableFuture<Integer> seen = new java.util.concurrent.CompletableFuture<>();
    streamContext.get(10, TimeUnit.SECONDS).runOnContext(v -> seen.complete(subscriber.outputs.size()));
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
        engine.generate("r", request(new int[] {1}, new StopConditions(1_000_000, null, null, null, null), null));
    java.util.concurrent.CompletableFuture<Integer> seenBetween = new java.util.concurrent.CompletableFuture<>();
    CollectingSubscriber[] collected = new CollectingSubscriber[1];
    collected[0] =
        new CollectingSubscriber(
            count -> {
              if (count == 1) {
                // queued now, this task runs as soon as the engine yields the event loop
                Vertx.currentContext().runOnContext(v -> {
                  seenBetween.complete(collected[0].outputs.size());
                  stream.cancel();
                });
              }
            });
    CollectingSubscriber subscriber = collected[0];
    vertx.runOnContext(v -> stream.subscribe(subscriber));
    assertThat(seenBetween.get(10, TimeUnit.SECONDS)).isEqualTo(SimulatedStream.BURST);
    assertThat(subscriber.done.get(10, TimeUnit.SECONDS)).isInstanceOf(RequestCancelledException.class);
  }
}
