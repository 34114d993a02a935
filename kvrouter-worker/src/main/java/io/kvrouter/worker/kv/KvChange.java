package io.kvrouter.worker.kv;

import java.util.List;

/**
 * One change a {@link BlockPool} made to what it caches, as its {@link BlockPoolListener}s hear of
 * it, before it is put in an event format ({@link VllmEvents}, {@link DynamoEvents}).
 */
public sealed interface KvChange {

  /**
   * Consecutive blocks of one sequence newly cached, in sequence order.
   *
   * @param parent the engine hash of the block before the first one, {@code null} at a sequence's
   *     start
   */
  record Stored(Long parent, List<KvBlock> blocks) implements KvChange {
    public Stored {
      blocks = List.copyOf(blocks);
    }
  }

  /** Blocks evicted, least recently released first. */
  record Removed(List<Long> hashes) implements KvChange {
    public Removed {
      hashes = List.copyOf(hashes);
    }
  }

  /** Every block dropped at once (vLLM's {@code reset_prefix_cache}). */
  record Cleared() implements KvChange {}
}
