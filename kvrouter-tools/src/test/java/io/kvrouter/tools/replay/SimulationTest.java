package io.kvrouter.tools.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.KvCost;
import io.kvrouter.config.RouterMode;
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.tools.report.PolicyRun;
import io.kvrouter.tools.trace.PromptBlocks;
import io.kvrouter.tools.trace.SyntheticTokens;
import io.kvrouter.tools.trace.TraceRequest;
import io.kvrouter.worker.engine.EngineSettings;
import io.kvrouter.worker.engine.TimingModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class SimulationTest {
  private static final int BS = 512;
  private static final SyntheticTokens TOKENS = new SyntheticTokens(1000, 50_000);

  /**
   * A random multi-turn workload: conversations whose turns extend the previous turn's blocks,
   * arriving as a Poisson process, so that prefixes are shared and caches fill.
   */
  static List<TraceRequest> randomTrace(long seed, int requests, double ratePerSecond) {
    Random random = new Random(seed);
    List<long[]> conversations = new ArrayList<>();
    long nextId = 0;
    double t = 0;
    List<TraceRequest> trace = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      t += -Math.log(1 - random.nextDouble()) / ratePerSecond * 1000;
      long[] prefix;
      int c = random.nextInt(conversations.size() + 3);
      if (c < conversations.size()) {
        long[] previous = conversations.get(c);
        prefix =
            LongStream.concat(LongStream.of(previous), LongStream.range(nextId, nextId + 2))
                .toArray();
        nextId += 2;
        conversations.set(c, prefix);
      } else {
        int blocks = 2 + random.nextInt(12);
        prefix = LongStream.range(nextId, nextId + blocks).toArray();
        nextId += blocks;
        conversations.add(prefix);
      }
      int input = (prefix.length - 1) * BS + 1 + random.nextInt(BS);
      trace.add(new TraceRequest(i, t, input, 1 + random.nextInt(200), prefix));
    }
    return trace;
  }

  static List<PromptBlocks> prompts(List<TraceRequest> trace) {
    BlockHasher hasher = BlockHasher.of(BS);
    return trace.stream().map(r -> PromptBlocks.of(TOKENS.prompt(r), hasher)).toList();
  }

  static SimulationSettings settings(int workers, int kvBlocks, long seed) {
    return settings(workers, kvBlocks, seed, KvCost.DYNAMO);
  }

  static SimulationSettings settings(int workers, int kvBlocks, long seed, KvCost kvCost) {
    return new SimulationSettings(
        workers,
        new EngineSettings(BS, kvBlocks, 64, 8192, 0.01, TimingModel.DEFAULT),
        5,
        seed,
        1000,
        kvCost);
  }

  /** Every policy with the default KV cost, and the KV policies with the other cost too. */
  static Stream<Arguments> policies() {
    return Stream.concat(
        Stream.of(RouterMode.values()).map(mode -> Arguments.of(mode, KvCost.DYNAMO)),
        Stream.of(RouterMode.KV, RouterMode.APPROX)
            .map(mode -> Arguments.of(mode, KvCost.PREDICTED_TTFT)));
  }

  @ParameterizedTest
  @MethodSource("policies")
  void everyRequestCompletes_andTheSameSeedGivesTheSameNumbers(RouterMode policy, KvCost cost) {
    List<TraceRequest> trace = randomTrace(7, 300, 6);
    Simulation simulation = new Simulation(settings(4, 400, 11, cost), trace, prompts(trace));
    List<Integer> progress = new ArrayList<>();
    PolicyRun first = simulation.run(policy, progress::add);
    PolicyRun second = simulation.run(policy, done -> {});

    assertThat(first.requests()).isEqualTo(300);
    assertThat(progress).hasSize(300).endsWith(300);
    assertThat(java.util.Arrays.stream(first.ttftSamplesMs()).min().getAsDouble()).isPositive();
    assertThat(first.ttftMs().mean()).isLessThanOrEqualTo(first.e2eMs().mean());
    assertThat(first.outputTokensPerS()).isPositive();
    assertThat(first.hitRate()).isBetween(0.0, 1.0);

    // NaN marks intervals without requests: Arrays.equals treats NaN as equal to itself
    assertThat(second)
        .usingRecursiveComparison()
        .ignoringFields("timeline.hitRate")
        .isEqualTo(first);
    assertThat(java.util.Arrays.equals(first.timeline().hitRate(), second.timeline().hitRate()))
        .isTrue();
  }

  @Test
  void aDifferentSeedChangesTheRandomPolicy() {
    List<TraceRequest> trace = randomTrace(7, 300, 6);
    PolicyRun a =
        new Simulation(settings(4, 400, 1), trace, prompts(trace)).run(RouterMode.RANDOM, d -> {});
    PolicyRun b =
        new Simulation(settings(4, 400, 2), trace, prompts(trace)).run(RouterMode.RANDOM, d -> {});
    assertThat(a.ttftMs()).isNotEqualTo(b.ttftMs());
  }

  @Test
  void theKvCostReachesTheKvPolicies_andOnlyThem() {
    List<TraceRequest> trace = randomTrace(7, 300, 12);
    Simulation dynamo = new Simulation(settings(4, 400, 3, KvCost.DYNAMO), trace, prompts(trace));
    Simulation ttft =
        new Simulation(settings(4, 400, 3, KvCost.PREDICTED_TTFT), trace, prompts(trace));
    for (RouterMode kv : List.of(RouterMode.KV, RouterMode.APPROX)) {
      assertThat(ttft.run(kv, d -> {}).ttftMs()).isNotEqualTo(dynamo.run(kv, d -> {}).ttftMs());
    }
    assertThat(ttft.run(RouterMode.SGLANG, d -> {}))
        .usingRecursiveComparison()
        .ignoringFields("timeline.hitRate")
        .isEqualTo(dynamo.run(RouterMode.SGLANG, d -> {}));
  }

  @ParameterizedTest
  @MethodSource("policies")
  void noWorkerEverHoldsMoreKvBlocksThanItsCapacity(RouterMode policy, KvCost cost) {
    // 60 blocks per worker against a workload that needs far more: eviction and preemption
    List<TraceRequest> trace = randomTrace(3, 200, 20);
    Simulation simulation = new Simulation(settings(2, 60, 5, cost), trace, prompts(trace));
    Simulation.Replay replay = simulation.replay(policy, d -> {});
    assertThat(replay.result.requests()).isEqualTo(200);
    assertThat(java.util.Arrays.stream(replay.peakUsedBlocks).max().getAsInt()).isEqualTo(60);
    assertThat(java.util.Arrays.stream(replay.peakUsedBlocks).min().getAsInt()).isPositive();
  }

  /**
   * Two long system prompts, each first seen by a different worker; then, spaced out so load never
   * matters, 20 requests alternating between them with new questions. The best assignment sends
   * every follow-up to the worker caching its system prompt, so each finds its 16 blocks cached.
   */
  @ParameterizedTest
  @EnumSource(KvCost.class)
  void kvFindsTheKnownBestAssignment(KvCost cost) {
    List<TraceRequest> trace = new ArrayList<>();
    long[] systemA = LongStream.range(0, 16).toArray();
    long[] systemB = LongStream.range(100, 116).toArray();
    trace.add(new TraceRequest(0, 0, 16 * BS, 10, systemA));
    trace.add(new TraceRequest(1, 1, 16 * BS, 10, systemB));
    for (int i = 0; i < 20; i++) {
      long[] system = (i / 3) % 2 == 0 ? systemA : systemB;
      long[] ids = LongStream.concat(LongStream.of(system), LongStream.of(1000 + i)).toArray();
      trace.add(new TraceRequest(2 + i, 10_000 + 10_000.0 * i, 16 * BS + 300, 10, ids));
    }
    long allPrompt = trace.stream().mapToLong(TraceRequest::inputTokens).sum();
    double best = 20.0 * 16 * BS / allPrompt;

    Simulation simulation = new Simulation(settings(2, 1000, 1, cost), trace, prompts(trace));
    assertThat(simulation.run(RouterMode.KV, d -> {}).hitRate()).isEqualTo(best);
    assertThat(simulation.run(RouterMode.ROUND_ROBIN, d -> {}).hitRate()).isLessThan(best);
  }
}
