package io.kvrouter.protocol;

import java.util.Optional;

/**
 * The text a worker refuses a request with when the request can never fit in its KV cache, however
 * empty the cache (as opposed to "full right now", which may pass). Dynamo's request plane carries
 * an engine's refusal as a plain string (the stream prologue's {@code error}), so the kind travels
 * in the text: a fixed prefix the router recognises, then the numbers.
 */
public final class KvCapacityRefusal {
  private KvCapacityRefusal() {}

  private static final String PREFIX = "request exceeds the KV cache capacity: ";

  /**
   * The refusal of a request that needs {@code neededTokens} tokens of KV cache from a worker whose
   * cache holds {@code capacityTokens}.
   */
  public static String message(long neededTokens, long capacityTokens) {
    return PREFIX
        + "it needs "
        + neededTokens
        + " tokens of KV cache, the worker holds "
        + capacityTokens;
  }

  /** What the refusal says after its prefix, if {@code refusal} is such a refusal. */
  public static Optional<String> detail(String refusal) {
    return refusal != null && refusal.startsWith(PREFIX)
        ? Optional.of(refusal.substring(PREFIX.length()))
        : Optional.empty();
  }
}
