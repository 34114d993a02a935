package io.kvrouter.worker.kv;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Everything a {@link BlockPool} caches at one moment: enough to compute what a router that applied
 * every event must hold, and to check the cache's own invariants.
 *
 * @param blocks every cached block, active or inactive, in the order they were stored
 * @param evictionOrder the engine hashes of the inactive blocks, the next one to be evicted first
 */
public record KvCacheSnapshot(
    int capacity, int blockSize, List<CachedBlock> blocks, List<Long> evictionOrder) {

  public KvCacheSnapshot {
    blocks = List.copyOf(blocks);
    evictionOrder = List.copyOf(evictionOrder);
  }

  /**
   * One cached block.
   *
   * @param hash its engine hash, as in the events
   * @param parentHash the engine hash of the block before it in its sequence; {@code null} for a
   *     sequence's first block
   * @param tokens its {@code blockSize} tokens; none for a block known by its hashes only ({@link
   *     KvBlock.Dynamo}, the simulator's)
   * @param references requests holding it; 0 means inactive (cached, reusable, evictable)
   * @param cacheSalt the vLLM salt hashed into it (a salted sequence's first block), or null
   */
  public record CachedBlock(
      long hash, Long parentHash, int[] tokens, int references, String cacheSalt) {
    public CachedBlock {
      tokens = tokens.clone();
    }

    /** A block without a salt of its own. */
    public CachedBlock(long hash, Long parentHash, int[] tokens, int references) {
      this(hash, parentHash, tokens, references, null);
    }

    @Override
    public int[] tokens() {
      return tokens.clone();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof CachedBlock other
          && hash == other.hash
          && Objects.equals(parentHash, other.parentHash)
          && Arrays.equals(tokens, other.tokens)
          && references == other.references
          && Objects.equals(cacheSalt, other.cacheSalt);
    }

    @Override
    public int hashCode() {
      return Long.hashCode(hash);
    }

    @Override
    public String toString() {
      return "CachedBlock["
          + Long.toUnsignedString(hash)
          + ", parent="
          + (parentHash == null ? "none" : Long.toUnsignedString(parentHash))
          + ", refs="
          + references
          + "]";
    }
  }

  /** Blocks held by at least one request. */
  public int activeBlocks() {
    return blocks.size() - evictionOrder.size();
  }

  /** Cached blocks no request holds. */
  public int inactiveBlocks() {
    return evictionOrder.size();
  }

  /** Slots not holding any block (some may be reserved for blocks being computed). */
  public int emptySlots() {
    return capacity - blocks.size();
  }

  /** The engine hashes of every cached block. */
  public Set<Long> hashes() {
    return blocks.stream().map(CachedBlock::hash).collect(Collectors.toUnmodifiableSet());
  }
}
