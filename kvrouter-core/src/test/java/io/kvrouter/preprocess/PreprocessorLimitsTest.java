package io.kvrouter.preprocess;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.KvRouterConfig;
import io.kvrouter.config.RouterMode;
import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.InvalidRequestException;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.routing.Migration;
import io.kvrouter.routing.RouteTarget;
import io.kvrouter.routing.Routers;
import io.kvrouter.testing.FakeRequestPlane;
import io.kvrouter.testing.Futures;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Requests against the model's context length and the workers' KV capacity, with the demo tokenizer
 * (one token per byte, so a prompt of N ASCII characters is N tokens): over either limit they are
 * refused before any worker sees them; without max_tokens the completion is cut at what is left.
 */
class PreprocessorLimitsTest {
  private final Vertx vertx = Vertx.vertx();
  private final FakeRequestPlane plane = new FakeRequestPlane();

  @AfterEach
  void close() throws Exception {
    Futures.result(vertx.close());
  }

  /** The demo model with {@code contextLength} (0: none), one worker of {@code kvBlocks} blocks. */
  private Preprocessor preprocessor(int contextLength, long kvBlocks) {
    ModelAssets assets =
        contextLength > 0
            ? ModelAssets.demo().withContextLength(contextLength)
            : ModelAssets.demo();
    return new Preprocessor(
        vertx,
        assets,
        "demo",
        Routers.create(
            RouterMode.ROUND_ROBIN,
            KvRouterConfig.DEFAULTS,
            16,
            List.of(
                new RouteTarget(new WorkerEndpoint("w1", "127.0.0.1", 1, "generate"), kvBlocks)),
            plane,
            Duration.ofSeconds(120),
            Migration.OFF,
            vertx,
            new SimpleMeterRegistry()),
        OutputParsers.NONE);
  }

  private static GenerationRequest request(String id, int promptTokens, Integer maxTokens) {
    return new GenerationRequest(
        id,
        new Prompt.Text("x".repeat(promptTokens)),
        maxTokens,
        null,
        null,
        null,
        null,
        false,
        null,
        null);
  }

  private static InvalidRequestException refusal(io.vertx.core.Future<?> future) throws Exception {
    Throwable failure = Futures.failure(future);
    assertThat(failure).isInstanceOf(InvalidRequestException.class);
    return (InvalidRequestException) failure;
  }

  @Test
  void overTheContextLength_isRefusedBeforeAnyWorkerSeesIt() throws Exception {
    Preprocessor preprocessor = preprocessor(50, 0);

    InvalidRequestException tooLong = refusal(preprocessor.generate(request("a", 40, 11)));
    assertThat(tooLong.param()).isEqualTo("max_tokens");
    assertThat(tooLong)
        .hasMessageStartingWith(
            "This model's context length is 50 tokens, but this request needs 51: 40 in the"
                + " prompt and 11 for the completion");
    assertThat(refusal(preprocessor.generate(request("b", 1, 51))))
        .hasMessageContaining("'max_tokens' is 51, more than this model's context length of 50");
    assertThat(refusal(preprocessor.generate(request("c", 50, null))).param()).isEqualTo("prompt");
    assertThat(refusal(preprocessor.explain(request("d", 40, 11))).param()).isEqualTo("max_tokens");
    assertThat(plane.sends).isEmpty();

    Futures.result(preprocessor.generate(request("e", 40, 10)));
    assertThat(plane.sends).containsExactly("w1");
  }

  @Test
  void overTheLargestWorkersKvCache_isRefusedNamingIt() throws Exception {
    Preprocessor preprocessor = preprocessor(0, 2); // two blocks of 16: 32 tokens

    assertThat(refusal(preprocessor.generate(request("a", 20, 13))))
        .hasMessageStartingWith(
            "The largest worker's KV cache holds 32 tokens, but this request needs 33");
    assertThat(refusal(preprocessor.generate(request("b", 40, null))))
        .hasMessageStartingWith(
            "The largest worker's KV cache holds 32 tokens, but the prompt alone has 40");
    assertThat(plane.sends).isEmpty();
  }

  @Test
  void withoutAnyKnownLimit_onlyMaxTokensBoundsTheRequest() throws Exception {
    Preprocessor preprocessor = preprocessor(0, 0);

    Futures.result(preprocessor.generate(request("a", 100_000, Integer.MAX_VALUE)));

    assertThat(plane.requestOf.get("a").stopConditions().maxTokens()).isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void withoutMaxTokens_theCompletionIsCutAtWhatTheContextLeaves() throws Exception {
    plane.set("w1", FakeRequestPlane.Behaviour.HOLD);
    Preprocessor preprocessor = preprocessor(50, 0);
    Generation generation = Futures.result(preprocessor.generate(request("a", 47, null)));
    AtomicInteger tokens = new AtomicInteger();
    AtomicReference<FinishReason> finish = new AtomicReference<>();
    generation.subscribe(
        new Generation.Listener() {
          @Override
          public void onDelta(Delta delta, int newTokens) {
            tokens.addAndGet(newTokens);
          }

          @Override
          public void onFinish(FinishReason reason, int completionTokens) {
            finish.set(reason);
          }

          @Override
          public void onError(Throwable error) {
            throw new AssertionError(error);
          }
        });

    FakeRequestPlane.Held held = plane.held.get("a");
    held.send('a', 'b');
    held.send('c', 'd');

    assertThat(finish.get()).isEqualTo(FinishReason.LENGTH);
    assertThat(tokens.get()).isEqualTo(3);
    assertThat(plane.cancels).containsExactly("w1");
    // the worker was told what the client asked, as vLLM would be: its own default applies
    assertThat(plane.requestOf.get("a").stopConditions().maxTokens()).isNull();
  }

  @Test
  void theGate_seesTheTokenizedRequestBeforeRouting_andItsBookingIsSettledWithWhatWasUsed()
      throws Exception {
    plane.set("w1", FakeRequestPlane.Behaviour.HOLD);
    Preprocessor preprocessor = preprocessor(50, 0);
    List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<Long> settled = new java.util.concurrent.CopyOnWriteArrayList<>();
    AdmissionGate gate =
        (request, promptTokens, completionTokens) -> {
          seen.add(request.requestId() + ":" + promptTokens + "+" + completionTokens);
          if (request.requestId().equals("refused")) {
            throw new InvalidRequestException("over the budget", null);
          }
          return settled::add;
        };

    // refused by the gate: the router never sees it, and there is nothing to settle
    assertThat(refusal(preprocessor.generate(request("refused", 10, 5), gate)))
        .hasMessage("over the budget");
    assertThat(plane.sends).isEmpty();
    // over the context length: refused before the gate is asked
    refusal(preprocessor.generate(request("long", 45, 6), gate));
    assertThat(seen).containsExactly("refused:10+5");

    // without max_tokens the gate is told what the context leaves; the end settles prompt and
    // the completion tokens delivered
    Generation generation = Futures.result(preprocessor.generate(request("a", 40, null), gate));
    assertThat(seen).endsWith("a:40+10");
    assertThat(settled).isEmpty();
    generation.subscribe(
        new Generation.Listener() {
          @Override
          public void onDelta(Delta delta, int newTokens) {}

          @Override
          public void onFinish(FinishReason reason, int completionTokens) {}

          @Override
          public void onError(Throwable error) {}
        });
    FakeRequestPlane.Held held = plane.held.get("a");
    held.send('a', 'b');
    held.answer('c');
    assertThat(settled).containsExactly(43L);

    // cancelled after one token: settled with that token
    Generation cancelled = Futures.result(preprocessor.generate(request("b", 20, 8), gate));
    cancelled.subscribe(
        new Generation.Listener() {
          @Override
          public void onDelta(Delta delta, int newTokens) {}

          @Override
          public void onFinish(FinishReason reason, int completionTokens) {}

          @Override
          public void onError(Throwable error) {}
        });
    plane.held.get("b").send('a');
    cancelled.cancel();
    assertThat(settled).containsExactly(43L, 21L);
  }
}
