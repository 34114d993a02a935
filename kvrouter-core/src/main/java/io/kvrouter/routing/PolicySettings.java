package io.kvrouter.routing;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.KvRouterConfig;
import java.util.Objects;
import java.util.Random;

/**
 * What a {@link RoutingPolicy} is built with, in the live router and in the simulator alike.
 *
 * @param blockSize tokens per KV block, as the prompts are hashed
 * @param kv the KV router's settings, for {@code kv} and {@code approx}: cost, weight, temperature,
 *     busy thresholds and the approximate index's TTL and size ({@code kvEvents} false makes {@code
 *     kv} approximate too, as {@code --no-kv-events} does)
 * @param prefillChunkTokens the most prompt tokens a worker computes per step, for the
 *     predicted-TTFT cost
 * @param random draws for {@code random}, {@code power-of-two} and the KV cost's softmax; shared by
 *     every thread that routes ({@link Random} is thread-safe), seeded in the simulator
 * @param ticker the clock of the TTLs, the periodic pruning and the books' request ages: the
 *     system's in the live router, the virtual one in the simulator
 */
public record PolicySettings(
    int blockSize, KvRouterConfig kv, int prefillChunkTokens, Random random, Ticker ticker) {

  public PolicySettings {
    if (blockSize < 1) {
      throw new IllegalArgumentException("blockSize must be >= 1: " + blockSize);
    }
    if (prefillChunkTokens < 1) {
      throw new IllegalArgumentException("prefillChunkTokens must be >= 1: " + prefillChunkTokens);
    }
    Objects.requireNonNull(kv, "kv");
    Objects.requireNonNull(random, "random");
    Objects.requireNonNull(ticker, "ticker");
  }
}
