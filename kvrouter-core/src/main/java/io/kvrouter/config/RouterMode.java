package io.kvrouter.config;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * How a worker is picked for each request: the routing policies, by the names {@code --router-mode}
 * and {@code router.jar simulate --policy} both take. This is the one list of policy names: the
 * settings' validation and help, the simulator's {@code --policy} (and its {@code all}, in this
 * order) and their error messages all read it.
 */
public enum RouterMode implements Named {
  KV(
      "kv",
      "to the worker cheapest by the KV router's cost (--router-kv-cost), which weighs the prompt"
          + " blocks a worker caches, as its KV cache events tell, against its load"),
  APPROX(
      "approx",
      "kv, learning what each worker caches from the router's own decisions instead of KV"
          + " events (the same as kv --no-kv-events)"),
  ROUND_ROBIN("round-robin", "workers in turn"),
  RANDOM("random", "a worker at random"),
  LEAST_LOADED("least-loaded", "the worker with the fewest requests in flight"),
  POWER_OF_TWO("power-of-two", "the worker with fewer requests in flight of two drawn at random"),
  SGLANG(
      "sglang",
      "SGLang's cache-aware policy: the worker the longest prefix of the prompt was sent to"
          + " before, when it covers more than 0.3 of the prompt and loads are balanced, else the"
          + " least loaded");

  private final String configName;
  private final String description;

  RouterMode(String configName, String description) {
    this.configName = configName;
    this.description = description;
  }

  @Override
  public String configName() {
    return configName;
  }

  /** What the policy does, in a phrase for help texts. */
  public String description() {
    return description;
  }

  /**
   * Whether the policy routes by the KV router's cost ({@code kv}, {@code approx}): the KV router's
   * settings (cost, weight, temperature, busy thresholds, approximate index) apply to it.
   */
  public boolean usesKvCost() {
    return this == KV || this == APPROX;
  }

  /** Every policy's name, in order. */
  public static List<String> names() {
    return Arrays.stream(values()).map(RouterMode::configName).toList();
  }

  /** The policy named {@code name}, if there is one. */
  public static Optional<RouterMode> named(String name) {
    return Arrays.stream(values()).filter(mode -> mode.configName.equals(name)).findFirst();
  }

  /** Every policy with what it does, for help texts: {@code "kv: ...; approx: ..."}. */
  public static String describeAll() {
    return Arrays.stream(values())
        .map(mode -> mode.configName + ": " + mode.description)
        .collect(Collectors.joining("; "));
  }
}
