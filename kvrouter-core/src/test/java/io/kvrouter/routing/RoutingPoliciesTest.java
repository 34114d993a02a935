package io.kvrouter.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.KvCost;
import io.kvrouter.config.KvRouterConfig;
import io.kvrouter.config.RouterMode;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Each policy's choices through the one interface, as the simulator builds them. */
class RoutingPoliciesTest {
  private static final int BS = 4;
  private static final List<Worker> WORKERS = List.of(worker("a"), worker("b"), worker("c"));

  private final ManualTicker ticker = new ManualTicker();
  private final Map<String, RoutingPolicy.Booking> bookings = new HashMap<>();

  /** A candidate of {@code dpSize} ranks of 1000 blocks each, without load reports. */
  record Worker(String workerId, List<WorkerRank> ranks) implements RouteCandidate {
    @Override
    public long totalKvBlocks(int dpRank) {
      return 1000;
    }

    @Override
    public long reportedActiveBlocks(int dpRank) {
      return -1;
    }
  }

  static Worker worker(String id) {
    return worker(id, 1);
  }

  static Worker worker(String id, int dpSize) {
    return new Worker(
        id, IntStream.range(0, dpSize).mapToObj(dp -> new WorkerRank(id, dp)).toList());
  }

  private RoutingPolicy policy(RouterMode mode) {
    return policy(mode, KvCost.DYNAMO);
  }

  private RoutingPolicy policy(RouterMode mode, KvCost cost) {
    return RoutingPolicies.simulated(
        mode,
        new PolicySettings(
            BS, KvRouterConfig.DEFAULTS.withCost(cost), 8192, new Random(7), ticker));
  }

  /** {@code tokens} consecutive token ids from {@code firstToken}. */
  private static Prompt prompt(int firstToken, int tokens) {
    return Prompt.ofTokens(
        IntStream.range(firstToken, firstToken + tokens).toArray(), BlockHasher.of(BS));
  }

  /** Chooses among {@link #WORKERS} and books {@code id} there; returns the worker's id. */
  private String route(RoutingPolicy policy, String id, Prompt prompt) {
    RoutingPolicy.Choice<Worker> choice = policy.choose(prompt, WORKERS);
    bookings.put(id, policy.book(id, prompt, choice));
    return choice.worker().workerId();
  }

  private void finished(String id) {
    bookings.remove(id).release();
  }

  private static KvCacheEvent stored(Prompt prompt) {
    List<KvCacheEvent.StoredBlock> blocks = new ArrayList<>();
    for (int i = 0; i < prompt.localHashes().length; i++) {
      blocks.add(new KvCacheEvent.StoredBlock(prompt.sequenceHashes()[i], prompt.localHashes()[i]));
    }
    return new KvCacheEvent.Stored(null, blocks);
  }

  @ParameterizedTest
  @EnumSource(RouterMode.class)
  void everyModeHasItsPolicy(RouterMode mode) {
    RoutingPolicy policy = policy(mode);
    assertThat(policy.mode()).isEqualTo(mode);
    assertThat(route(policy, "r", prompt(0, 8))).isIn("a", "b", "c");
  }

  @Test
  void roundRobinTakesWorkersInTurn() {
    RoutingPolicy policy = policy(RouterMode.ROUND_ROBIN);
    List<String> chosen = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      chosen.add(route(policy, "r" + i, prompt(0, 8)));
    }
    assertThat(chosen).containsExactly("a", "b", "c", "a", "b", "c");
  }

  @Test
  void leastLoadedTakesTheWorkerWithFewestRequestsInFlight() {
    RoutingPolicy policy = policy(RouterMode.LEAST_LOADED);
    assertThat(route(policy, "1", prompt(0, 8))).isEqualTo("a");
    assertThat(route(policy, "2", prompt(0, 8))).isEqualTo("b");
    finished("1");
    assertThat(route(policy, "3", prompt(0, 8))).isEqualTo("a");
    assertThat(route(policy, "4", prompt(0, 8))).isEqualTo("c");
  }

  @Test
  void powerOfTwoNeverTakesTheMoreLoadedOfItsTwoDraws() {
    RoutingPolicy policy = policy(RouterMode.POWER_OF_TWO);
    Map<String, Integer> inFlight = new HashMap<>();
    for (int i = 0; i < 300; i++) {
      inFlight.merge(route(policy, "r" + i, prompt(0, 8)), 1, Integer::sum);
    }
    // with 3 workers, the most loaded of any pair is never chosen, so loads stay within 1 of each
    // other... plus at most one of drift from ties; random would spread far wider over 300
    int max = inFlight.values().stream().max(Integer::compare).orElseThrow();
    int min = inFlight.values().stream().min(Integer::compare).orElseThrow();
    assertThat(max - min).isLessThanOrEqualTo(2);
  }

  @ParameterizedTest
  @EnumSource(KvCost.class)
  void kvFollowsTheEventsToTheWorkerCachingThePrompt(KvCost cost) {
    RoutingPolicy policy = policy(RouterMode.KV, cost);
    assertThat(policy.followsKvEvents()).isTrue();
    policy.kvEvent(WorkerRank.of("c"), stored(prompt(100, 32)));
    assertThat(route(policy, "1", prompt(100, 34))).isEqualTo("c");
  }

  @ParameterizedTest
  @EnumSource(KvCost.class)
  void approxLearnsFromItsOwnDecisionsAndForgetsAfterTheTtl(KvCost cost) {
    RoutingPolicy policy = policy(RouterMode.APPROX, cost);
    assertThat(policy.followsKvEvents()).isFalse();
    policy.kvEvent(WorkerRank.of("c"), stored(prompt(100, 32))); // ignored: it learns alone
    assertThat(route(policy, "0", prompt(5000, 32))).isEqualTo("a");
    assertThat(route(policy, "1", prompt(100, 32))).isEqualTo("b");
    finished("0");
    finished("1");
    assertThat(route(policy, "2", prompt(100, 34))).isEqualTo("b");
    finished("2");
    ticker.advance(Duration.ofSeconds(121)); // past the 120 s TTL
    // forgotten everywhere: every worker ties, and the first wins
    assertThat(route(policy, "3", prompt(100, 34))).isEqualTo("a");
  }

  @Test
  void kvWithoutKvEventsIsApprox() {
    RoutingPolicy policy =
        RoutingPolicies.simulated(
            RouterMode.KV,
            new PolicySettings(BS, KvRouterConfig.APPROXIMATE, 8192, new Random(7), ticker));
    assertThat(policy.mode()).isEqualTo(RouterMode.KV);
    assertThat(policy.followsKvEvents()).isFalse();
    assertThat(route(policy, "0", prompt(5000, 32))).isEqualTo("a");
    finished("0");
    // a is learned to cache r0's blocks, so among equal costs the tie goes to b
    assertThat(route(policy, "1", prompt(100, 32))).isEqualTo("b");
    finished("1");
    assertThat(route(policy, "2", prompt(100, 34))).isEqualTo("b");
  }

  @Test
  void kvChoosesADataParallelRankAndSaysWhich_theOthersLetTheWorkerChoose() {
    List<Worker> ranked = List.of(worker("a", 2), worker("b"));
    Prompt prompt = prompt(100, 32);
    RoutingPolicy kv = policy(RouterMode.KV);
    kv.kvEvent(new WorkerRank("a", 1), stored(prompt));
    RoutingPolicy.Choice<Worker> choice = kv.choose(prompt, ranked);
    assertThat(choice.worker().workerId()).isEqualTo("a");
    assertThat(choice.dpRank()).hasValue(1);
    assertThat(choice.cost()).get().satisfies(c -> assertThat(c.overlapBlocks()).isEqualTo(8));
    assertThat(kv.choose(prompt(900, 32), List.of(worker("b"))).dpRank()).isEmpty();

    for (RouterMode mode : List.of(RouterMode.ROUND_ROBIN, RouterMode.SGLANG)) {
      assertThat(policy(mode).choose(prompt, ranked).dpRank()).as(mode.configName()).isEmpty();
    }
  }

  @Test
  void sglangSticksToTheWorkerWithTheLongestMatchAboveItsThreshold() {
    RoutingPolicy policy = policy(RouterMode.SGLANG);
    String first = route(policy, "1", prompt(100, 40));
    // 10 of 11 blocks match: above the 0.3 threshold, so the same worker, though it is the busiest
    assertThat(route(policy, "2", prompt(100, 44))).isEqualTo(first);
    // an unrelated prompt goes to the least loaded worker
    assertThat(route(policy, "3", prompt(9000, 40))).isNotEqualTo(first);
  }

  @Test
  void sglangTurnsToTheLeastLoadedWorkerWhenWorkersAreImbalanced() {
    RoutingPolicy policy = policy(RouterMode.SGLANG);
    String hot = route(policy, "0", prompt(100, 40));
    for (int i = 1; i <= 64; i++) {
      assertThat(route(policy, "r" + i, prompt(100, 40))).isEqualTo(hot);
    }
    // 65 in flight against 0: 65 - 0 > 64 and 65 > 1.5 x 0
    assertThat(route(policy, "next", prompt(100, 40))).isNotEqualTo(hot);
  }

  @Test
  void sglangForgetsWhatALostWorkerWasSent() {
    RoutingPolicy policy = policy(RouterMode.SGLANG);
    assertThat(route(policy, "1", prompt(100, 40))).isEqualTo("a");
    finished("1");
    policy.workerLost("a");
    assertThat(route(policy, "2", prompt(9000, 40))).isEqualTo("a"); // least loaded, first
    assertThat(route(policy, "3", prompt(100, 40))).as("no match left on a").isEqualTo("b");
  }

  @Test
  void theCacheBlindPoliciesNeverHashThePrompt() {
    int[] tokens = IntStream.range(0, 64).toArray();
    BlockHasher counting = BlockHasher.of(BS);
    for (RouterMode mode :
        List.of(
            RouterMode.ROUND_ROBIN,
            RouterMode.RANDOM,
            RouterMode.LEAST_LOADED,
            RouterMode.POWER_OF_TWO)) {
      Prompt prompt = Prompt.ofTokens(tokens, counting);
      RoutingPolicy policy = policy(mode);
      policy.book("r", prompt, policy.choose(prompt, WORKERS)).release();
      assertThat(prompt.isHashed()).as(mode.configName()).isFalse();
    }
  }
}
