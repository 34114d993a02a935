package io.kvrouter.routing;

import io.kvrouter.config.KvCost;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.routing.schedule.KvSelector;
import io.kvrouter.routing.schedule.ScheduleSettings;
import io.kvrouter.routing.schedule.TtftModel;
import java.util.List;
import java.util.Random;
import java.util.function.LongSupplier;

/** The routing policies the simulator compares, by name. */
public final class RankPolicies {

  /** Every policy, in the order results are shown. */
  public static final List<String> NAMES =
      List.of(
          "kv",
          "dynamo",
          "approx",
          "round-robin",
          "random",
          "least-loaded",
          "power-of-two",
          "sglang");

  private RankPolicies() {}

  /**
   * What a policy is built with.
   *
   * @param blockSize tokens per KV block, as the prompts were hashed
   * @param kvBlocks each rank's KV capacity in blocks
   * @param chunkTokens the most prompt tokens a rank computes per step, for {@code kv}'s predicted
   *     time to first token
   * @param seed seeds the random policies and the softmax draw
   * @param nanoClock the (virtual) clock in nanoseconds, for TTLs and periodic pruning
   */
  public record Options(
      int blockSize, long kvBlocks, int chunkTokens, long seed, LongSupplier nanoClock) {}

  /**
   * A new policy over {@code ranks}.
   *
   * @throws IllegalArgumentException naming the valid policies when {@code name} is not one
   */
  public static RankPolicy create(String name, List<WorkerRank> ranks, Options options) {
    if (ranks.isEmpty()) {
      throw new IllegalArgumentException("a policy needs at least one worker rank");
    }
    Random random = new Random(options.seed());
    ScheduleSettings dynamoDefaults = ScheduleSettings.defaults(options.blockSize());
    TtftModel model = TtftModel.MOCKER.withChunkTokens(options.chunkTokens());
    KvSelector dynamoCost =
        KvScheduling.selector(KvCost.DYNAMO, dynamoDefaults, model, random::nextDouble);
    switch (name) {
      case "kv":
        KvSelector predictedTtft =
            KvScheduling.selector(KvCost.PREDICTED_TTFT, dynamoDefaults, model, random::nextDouble);
        return new KvRankPolicy(
            "kv", predictedTtft, false, ranks, options.kvBlocks(), options.nanoClock());
      case "dynamo":
        return new KvRankPolicy(
            "dynamo", dynamoCost, false, ranks, options.kvBlocks(), options.nanoClock());
      case "approx":
        return new KvRankPolicy(
            "approx", dynamoCost, true, ranks, options.kvBlocks(), options.nanoClock());
      case "round-robin":
        return LoadBalancingPolicy.roundRobin(ranks);
      case "random":
        return LoadBalancingPolicy.random(ranks, random);
      case "least-loaded":
        return LoadBalancingPolicy.leastLoaded(ranks);
      case "power-of-two":
        return LoadBalancingPolicy.powerOfTwo(ranks, random);
      case "sglang":
        return new SglangCacheAwarePolicy(ranks, options.blockSize(), options.nanoClock());
      default:
        throw new IllegalArgumentException(
            "unknown policy '" + name + "'; valid: " + String.join(", ", NAMES));
    }
  }
}
