package io.kvrouter.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.hash.BlockHasher;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RankPoliciesTest {
  private static final int BS = 4;
  private static final List<WorkerRank> RANKS =
      List.of(WorkerRank.of("a"), WorkerRank.of("b"), WorkerRank.of("c"));
  private long nowNanos;

  private RankPolicy policy(String name) {
    return RankPolicies.create(
        name, RANKS, new RankPolicies.Options(BS, 1000, 8192, 7, () -> nowNanos));
  }

  private static HashedPrompt prompt(String id, int firstToken, int tokens) {
    int[] t = new int[tokens];
    for (int i = 0; i < tokens; i++) {
      t[i] = firstToken + i;
    }
    long[] local = BlockHasher.of(BS).localHashes(t);
    return new HashedPrompt(id, tokens, local, BlockHasher.chain(local));
  }

  private static KvCacheEvent stored(HashedPrompt prompt) {
    List<KvCacheEvent.StoredBlock> blocks = new ArrayList<>();
    for (int i = 0; i < prompt.localHashes().length; i++) {
      blocks.add(new KvCacheEvent.StoredBlock(prompt.sequenceHashes()[i], prompt.localHashes()[i]));
    }
    return new KvCacheEvent.Stored(null, blocks);
  }

  @Test
  void roundRobinTakesRanksInTurn() {
    RankPolicy policy = policy("round-robin");
    List<String> chosen = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      chosen.add(policy.route(prompt("r" + i, 0, 8)).workerId());
    }
    assertThat(chosen).containsExactly("a", "b", "c", "a", "b", "c");
  }

  @Test
  void leastLoadedTakesTheRankWithFewestRequestsInFlight() {
    RankPolicy policy = policy("least-loaded");
    assertThat(policy.route(prompt("1", 0, 8)).workerId()).isEqualTo("a");
    assertThat(policy.route(prompt("2", 0, 8)).workerId()).isEqualTo("b");
    policy.finished("1");
    assertThat(policy.route(prompt("3", 0, 8)).workerId()).isEqualTo("a");
    assertThat(policy.route(prompt("4", 0, 8)).workerId()).isEqualTo("c");
  }

  @Test
  void powerOfTwoNeverTakesTheMoreLoadedOfItsTwoDraws() {
    RankPolicy policy = policy("power-of-two");
    Map<String, Integer> inFlight = new HashMap<>();
    for (int i = 0; i < 300; i++) {
      String chosen = policy.route(prompt("r" + i, 0, 8)).workerId();
      inFlight.merge(chosen, 1, Integer::sum);
    }
    // with 3 ranks, the most loaded of any pair is never chosen, so loads stay within 1 of each
    // other... plus at most one of drift from ties; random would spread far wider over 300
    int max = inFlight.values().stream().max(Integer::compare).orElseThrow();
    int min = inFlight.values().stream().min(Integer::compare).orElseThrow();
    assertThat(max - min).isLessThanOrEqualTo(2);
  }

  @Test
  void kvFollowsTheEventsToTheRankCachingThePrompt() {
    RankPolicy policy = policy("kv");
    assertThat(policy.followsKvEvents()).isTrue();
    HashedPrompt cachedOnC = prompt("x", 100, 32);
    policy.kvEvent(WorkerRank.of("c"), stored(cachedOnC));
    assertThat(policy.route(prompt("1", 100, 34)).workerId()).isEqualTo("c");
  }

  @Test
  void approxLearnsFromItsOwnDecisionsAndForgetsAfterTheTtl() {
    RankPolicy policy = policy("approx");
    assertThat(policy.followsKvEvents()).isFalse();
    assertThat(policy.route(prompt("0", 5000, 32)).workerId()).isEqualTo("a");
    assertThat(policy.route(prompt("1", 100, 32)).workerId()).isEqualTo("b");
    policy.finished("0");
    policy.finished("1");
    assertThat(policy.route(prompt("2", 100, 34)).workerId()).isEqualTo("b");
    policy.finished("2");
    nowNanos += 121_000_000_000L; // past the 120 s TTL
    // forgotten everywhere: every rank ties, and the first wins
    assertThat(policy.route(prompt("3", 100, 34)).workerId()).isEqualTo("a");
  }

  @Test
  void sglangSticksToTheRankWithTheLongestMatchAboveItsThreshold() {
    RankPolicy policy = policy("sglang");
    String first = policy.route(prompt("1", 100, 40)).workerId();
    // 10 of 11 blocks match: above the 0.3 threshold, so the same rank, though it is the busiest
    assertThat(policy.route(prompt("2", 100, 44)).workerId()).isEqualTo(first);
    // an unrelated prompt goes to the least loaded rank
    assertThat(policy.route(prompt("3", 9000, 40)).workerId()).isNotEqualTo(first);
  }

  @Test
  void sglangTurnsToTheLeastLoadedRankWhenRanksAreImbalanced() {
    RankPolicy policy = policy("sglang");
    String hot = policy.route(prompt("0", 100, 40)).workerId();
    for (int i = 1; i <= 64; i++) {
      assertThat(policy.route(prompt("r" + i, 100, 40)).workerId()).isEqualTo(hot);
    }
    // 65 in flight against 0: 65 - 0 > 64 and 65 > 1.5 x 0
    assertThat(policy.route(prompt("next", 100, 40)).workerId()).isNotEqualTo(hot);
  }

  @Test
  void anUnknownPolicyIsRefusedWithTheValidNames() {
    assertThatThrownBy(() -> policy("fastest"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown policy 'fastest'")
        .hasMessageContaining("power-of-two");
  }
}
