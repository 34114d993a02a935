package io.kvrouter.protocol.vllm;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The cache namespace of every salted block one engine rank holds, by engine block hash, so that a
 * store that continues a salted sequence is hashed under its salt too. vLLM names the salt only in
 * the {@code extra_keys} of a sequence's first block ({@link VllmCacheSalt#namespaceIn}); a store
 * of later blocks (a prompt extending a cached prefix, each block filled while decoding) carries no
 * salt, only its parent's engine hash. The namespace is the parent's: the engine chains every block
 * from the salted first one.
 *
 * <p>Dynamo's own decoder hashes such a continuation without its salt (it reads the first block's
 * keys only). Its blocks then sit, unsalted, under a salted parent: no unsalted prompt reaches them
 * (the walk from the root stops at the salted first block) and a salted prompt stops before them.
 * Remembering the parent's namespace keeps the tenant's own reuse past the first store.
 *
 * <p>Holds only salted blocks: unsalted ones cost nothing. Entries go with the blocks' removals and
 * with a clear. Safe from any thread; one rank's events are applied in order.
 */
public final class SaltedChains {
  private final Map<Long, String> namespaces = new ConcurrentHashMap<>();

  /**
   * The namespace a store's blocks are hashed under: {@code named} when its first block names one,
   * else its parent's, else none (null).
   */
  public String namespaceOf(Long parentHash, String named) {
    if (named != null) {
      return named;
    }
    return parentHash == null ? null : namespaces.get(parentHash);
  }

  /** Remembers that {@code hashes} were stored under {@code namespace} (nothing for null). */
  public void stored(List<Long> hashes, String namespace) {
    if (namespace != null) {
      for (Long hash : hashes) {
        namespaces.put(hash, namespace);
      }
    }
  }

  /** Forgets removed blocks. */
  public void removed(List<Long> hashes) {
    if (!namespaces.isEmpty()) {
      hashes.forEach(namespaces::remove);
    }
  }

  /** Forgets every block (the rank's cache was cleared). */
  public void cleared() {
    namespaces.clear();
  }

  /** How many salted blocks are remembered: for tests. */
  public int size() {
    return namespaces.size();
  }
}
