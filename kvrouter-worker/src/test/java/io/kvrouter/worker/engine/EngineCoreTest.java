package io.kvrouter.worker.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.worker.kv.BlockPool;
import io.kvrouter.worker.kv.KvChange;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EngineCoreTest {
  private static final int BS = 4;

  /**
   * Records tokens and events, and replays Stored/Removed to know what the engine says it caches.
   */
  static final class Recorder implements EngineListener {
    final Map<String, Integer> tokens = new HashMap<>();
    final List<String> finished = new ArrayList<>();
    final List<KvCacheEvent> events = new ArrayList<>();
    final Set<Long> cached = new HashSet<>();
    String stopAt;

    @Override
    public boolean onToken(EngineRequest request, int index) {
      assertThat(index).isEqualTo(tokens.getOrDefault(request.id(), 0));
      tokens.merge(request.id(), 1, Integer::sum);
      return request.id().equals(stopAt);
    }

    @Override
    public void onFinished(EngineRequest request) {
      finished.add(request.id());
    }

    void onKvEvent(KvCacheEvent event) {
      events.add(event);
      if (event instanceof KvCacheEvent.Stored stored) {
        if (stored.parentBlockHash() != null) {
          assertThat(cached)
              .as("parent of a stored run is cached")
              .contains(stored.parentBlockHash());
        }
        stored.blocks().forEach(b -> assertThat(cached.add(b.blockHash())).isTrue());
      } else if (event instanceof KvCacheEvent.Removed removed) {
        removed.blockHashes().forEach(h -> assertThat(cached.remove(h)).isTrue());
      }
    }
  }

  static EngineRequest request(String id, int[] tokens, int output) {
    BlockHasher hasher = BlockHasher.of(BS);
    long[] local = hasher.localHashes(tokens);
    return new EngineRequest(id, tokens.length, BlockHasher.chain(local), local, output);
  }

  static int[] tokens(int from, int count) {
    int[] t = new int[count];
    for (int i = 0; i < count; i++) {
      t[i] = from + i;
    }
    return t;
  }

  /** Runs steps until idle; returns the total step time. */
  static double drain(EngineCore engine) {
    double total = 0;
    EngineCore.Step step;
    while ((step = engine.startStep()) != null) {
      total += step.durationMillis();
      engine.completeStep(step);
      assertThat(engine.usedBlocks()).isLessThanOrEqualTo(engine.settings().numGpuBlocks());
    }
    return total;
  }

  /** An engine with a cache of its own, reporting its Dynamo KV events to {@code recorder}. */
  static EngineCore engine(EngineSettings settings, Recorder recorder) {
    return new EngineCore(settings, recorder, recorder::onKvEvent);
  }

  static EngineSettings settings(int blocks, int maxSeqs, int maxBatched) {
    return new EngineSettings(BS, blocks, maxSeqs, maxBatched, 0.0, TimingModel.DEFAULT);
  }

  @Test
  void aRequestPrefillsThenDecodesOneTokenPerStep_andStepsTakeTheMockerTime() {
    Recorder recorder = new Recorder();
    EngineCore engine = engine(settings(100, 8, 8192), recorder);
    engine.submit(request("a", tokens(0, 10), 3));
    EngineCore.Step prefill = engine.startStep();
    assertThat(prefill.prefillTokens()).isEqualTo(10);
    assertThat(prefill.durationMillis()).isEqualTo(TimingModel.prefillMillis(10));
    engine.completeStep(prefill);
    assertThat(recorder.tokens).containsEntry("a", 1);
    EngineCore.Step decode = engine.startStep();
    assertThat(decode.prefillTokens()).isZero();
    // 10 KV tokens of 400: u = 0.025
    assertThat(decode.durationMillis()).isEqualTo(TimingModel.decodeMillis(10 / 400.0));
    engine.completeStep(decode);
    engine.completeStep(engine.startStep());
    assertThat(recorder.tokens).containsEntry("a", 3);
    assertThat(recorder.finished).containsExactly("a");
    assertThat(engine.startStep()).isNull();
    assertThat(engine.activeBlocks()).isZero();
    // two full prompt blocks were stored; the block filled by output token 1 too (10 + 2 = 12)
    assertThat(engine.usedBlocks()).isEqualTo(3);
  }

  @Test
  void longPromptsArePrefilledInChunksOfTheTokenBudget() {
    Recorder recorder = new Recorder();
    EngineCore engine = engine(settings(100, 8, 16), recorder);
    engine.submit(request("a", tokens(0, 40), 1));
    List<Long> chunks = new ArrayList<>();
    EngineCore.Step step;
    while ((step = engine.startStep()) != null) {
      chunks.add(step.prefillTokens());
      engine.completeStep(step);
    }
    assertThat(chunks).containsExactly(16L, 16L, 8L);
    assertThat(recorder.finished).containsExactly("a");
  }

  @Test
  void aCachedPrefixIsNotComputedAgain_andOneTokenIsAlwaysLeftToCompute() {
    Recorder recorder = new Recorder();
    EngineCore engine = engine(settings(100, 8, 8192), recorder);
    engine.submit(request("a", tokens(0, 12), 1));
    drain(engine);
    engine.submit(request("b", tokens(0, 14), 1)); // same 3 blocks, then 2 more tokens
    EngineCore.Step b = engine.startStep();
    assertThat(b.prefillTokens()).isEqualTo(2);
    engine.completeStep(b);
    drain(engine);
    engine.submit(request("c", tokens(0, 12), 1)); // the whole prompt is cached
    EngineCore.Step c = engine.startStep();
    assertThat(c.prefillTokens()).isEqualTo(4);
    engine.completeStep(c);
    drain(engine);
    assertThat(engine.promptTokens()).isEqualTo(38);
    assertThat(engine.cachedPromptTokens()).isEqualTo(12 + 8);
  }

  @Test
  void admissionIsFcfsAndBoundedByMaxNumSeqs() {
    Recorder recorder = new Recorder();
    EngineCore engine = engine(settings(100, 2, 8192), recorder);
    for (String id : List.of("a", "b", "c")) {
      engine.submit(request(id, tokens(id.charAt(0) * 100, 8), 2));
    }
    EngineCore.Step first = engine.startStep();
    assertThat(first.batchSize()).isEqualTo(2);
    assertThat(engine.waitingRequests()).isEqualTo(1);
    engine.completeStep(first);
    drain(engine);
    assertThat(recorder.finished).containsExactly("a", "b", "c");
  }

  @Test
  void aFullCacheEvictsTheLeastRecentlyReleasedBlocks_andEventsSayWhatIsCached() {
    Recorder recorder = new Recorder();
    EngineCore engine = engine(settings(4, 8, 8192), recorder);
    engine.submit(request("a", tokens(0, 8), 1)); // 2 blocks
    drain(engine);
    engine.submit(request("b", tokens(100, 8), 1)); // 2 more: full
    drain(engine);
    engine.submit(request("c", tokens(200, 8), 1)); // evicts a's 2 blocks
    drain(engine);
    assertThat(recorder.events)
        .anySatisfy(e -> assertThat(e).isInstanceOf(KvCacheEvent.Removed.class));
    assertThat(recorder.cached).hasSize(engine.usedBlocks());
    engine.submit(request("b2", tokens(100, 8), 1)); // b's blocks survived
    assertThat(engine.startStep().prefillTokens()).isEqualTo(4);
  }

  @Test
  void whenDecodeRunsOutOfBlocksTheNewestRequestIsPreempted_andStillCompletes() {
    Recorder recorder = new Recorder();
    // 6 blocks; two requests of 8-token prompts (2 blocks each) generating 8 tokens need 4 each
    EngineCore engine = engine(settings(6, 8, 8192), recorder);
    engine.submit(request("a", tokens(0, 8), 8));
    engine.submit(request("b", tokens(100, 8), 8));
    drain(engine);
    assertThat(engine.preemptions()).isPositive();
    assertThat(recorder.finished).containsExactlyInAnyOrder("a", "b");
    assertThat(recorder.tokens).containsEntry("a", 8).containsEntry("b", 8);
    assertThat(engine.activeBlocks()).isZero();
    assertThat(recorder.cached).hasSize(engine.usedBlocks());
  }

  /**
   * Worked by hand (4 blocks of 4 tokens, two 4-token prompts): both prefill in step 1 and decode
   * in steps 2-5; in step 6 a needs a third block, none is free, so b (admitted last) is preempted
   * after 5 tokens, and a ends. Step 7 recomputes b's 9 known tokens (its first block is still
   * cached: 5 to compute) and emits its 6th token; step 8 is a plain decode for its 7th.
   */
  @Test
  void aPreemptedRequestRecomputesEveryKnownTokenAndThenDecodes() {
    Recorder recorder = new Recorder();
    EngineCore engine = engine(settings(4, 8, 8192), recorder);
    engine.submit(request("a", tokens(0, 4), 6));
    engine.submit(request("b", tokens(100, 4), 7));
    List<Long> prefillPerStep = new ArrayList<>();
    EngineCore.Step step;
    while ((step = engine.startStep()) != null) {
      prefillPerStep.add(step.prefillTokens());
      engine.completeStep(step);
    }
    assertThat(prefillPerStep).containsExactly(8L, 0L, 0L, 0L, 0L, 0L, 5L, 0L);
    assertThat(engine.preemptions()).isEqualTo(1);
    assertThat(recorder.tokens).containsEntry("a", 6).containsEntry("b", 7);
  }

  @Test
  void aRequestCancelledDuringAStepGetsNothingFromIt_andFreesItsBlocks() {
    Recorder recorder = new Recorder();
    EngineCore engine = engine(settings(100, 8, 8192), recorder);
    engine.submit(request("a", tokens(0, 8), 3));
    engine.submit(request("b", tokens(100, 8), 3));
    EngineCore.Step step = engine.startStep();
    assertThat(engine.cancel("b")).isTrue();
    engine.completeStep(step);
    drain(engine);
    assertThat(recorder.tokens).containsEntry("a", 3).doesNotContainKey("b");
    assertThat(recorder.finished).containsExactly("a");
    assertThat(engine.activeBlocks()).isZero();
    assertThat(engine.cancel("b")).isFalse();
  }

  @Test
  void theListenerCanEndARequestEarly() {
    Recorder recorder = new Recorder();
    recorder.stopAt = "a";
    EngineCore engine = engine(settings(100, 8, 8192), recorder);
    engine.submit(request("a", tokens(0, 5), 50));
    drain(engine);
    assertThat(recorder.tokens).containsEntry("a", 1);
    assertThat(recorder.finished).containsExactly("a");
  }

  @Test
  void aRequestThatCanNeverFitIsRefused() {
    EngineCore engine = engine(settings(4, 8, 8192), new Recorder());
    assertThatThrownBy(() -> engine.submit(request("big", tokens(0, 16), 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs 5 KV blocks");
  }

  @Test
  void theWatermarkKeepsAdmissionBelowCapacity() {
    Recorder recorder = new Recorder();
    EngineSettings withWatermark = new EngineSettings(BS, 10, 8, 8192, 0.3, TimingModel.DEFAULT);
    EngineCore engine = engine(withWatermark, recorder);
    engine.submit(request("a", tokens(0, 16), 4)); // 4 blocks of the 7 admitted
    engine.submit(request("b", tokens(100, 16), 4)); // 4 more would pass 7
    assertThat(engine.startStep().batchSize()).isEqualTo(1);
    assertThat(engine.waitingRequests()).isEqualTo(1);
  }

  @Test
  void anEngineCanScheduleIntoAPoolItShares_whoseListenersHearItsChanges() {
    BlockPool pool = new BlockPool(100, BS);
    List<KvChange> changes = new ArrayList<>();
    pool.subscribe(changes::addAll);
    EngineCore engine = new EngineCore(settings(100, 8, 8192), new Recorder(), pool);
    EngineRequest request = request("a", tokens(0, 10), 1);

    engine.submit(request);
    drain(engine);

    assertThat(changes)
        .containsExactly(
            new KvChange.Stored(
                null, List.of(request.blocks().block(0), request.blocks().block(1))));
    assertThat(pool.usedBlocks()).isEqualTo(engine.usedBlocks()).isEqualTo(2);
    assertThatThrownBy(() -> new EngineCore(settings(99, 8, 8192), new Recorder(), pool))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a pool of 100 blocks");
  }
}
