package io.kvrouter.routing;

import io.kvrouter.config.RouterMode;

/** Builds the {@link RoutingPolicy} of each {@link RouterMode}, for the simulator or the router. */
public final class RoutingPolicies {
  private RoutingPolicies() {}

  /** Builds {@code kv} or {@code approx}, where the KV policy's index and upkeep live. */
  @FunctionalInterface
  interface KvPolicies {
    /**
     * @param approximate learn from decisions instead of following KV events
     */
    RoutingPolicy create(RouterMode mode, boolean approximate);
  }

  /**
   * {@code mode}'s policy as the simulator drives it: one caller at a time, in virtual time ({@code
   * settings.ticker()}), deterministic for {@code settings.random()}'s seed. The KV policies apply
   * KV events and expire learned blocks on the caller's thread.
   */
  public static RoutingPolicy simulated(RouterMode mode, PolicySettings settings) {
    return create(
        mode, settings, (kvMode, approximate) -> KvPolicy.inline(kvMode, settings, approximate));
  }

  /**
   * {@code mode}'s policy, with {@code kv} and {@code approx} built by {@code kvPolicies}. {@code
   * approx} always learns from its decisions; {@code kv} does too when {@code settings.kv()} has KV
   * events off ({@code --no-kv-events}).
   */
  static RoutingPolicy create(RouterMode mode, PolicySettings settings, KvPolicies kvPolicies) {
    return switch (mode) {
      case KV -> kvPolicies.create(mode, !settings.kv().kvEvents());
      case APPROX -> kvPolicies.create(mode, true);
      case ROUND_ROBIN -> LoadBalancingPolicy.roundRobin();
      case RANDOM -> LoadBalancingPolicy.random(settings.random());
      case LEAST_LOADED -> LoadBalancingPolicy.leastLoaded();
      case POWER_OF_TWO -> LoadBalancingPolicy.powerOfTwo(settings.random());
      case SGLANG -> new SglangCacheAwarePolicy(settings.blockSize(), settings.ticker());
    };
  }
}
