package io.kvrouter.protocol;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A change to one worker rank's KV cache, as the engine reports it (Dynamo's {@code
 * KvCacheEventData}): blocks stored, blocks removed, or everything cleared.
 *
 * <p>Two hashes name a block. The <em>block hash</em> is the engine's own sequence hash ({@code
 * ExternalSequenceBlockHash}): opaque, it identifies the block together with everything before it
 * and is used only to address the block (parent lookup, removal). The <em>tokens hash</em> is the
 * router's {@code LocalBlockHash} of the block's tokens alone, the key prompts are matched by. Both
 * are unsigned 64-bit values carried in a {@code long}.
 */
public sealed interface KvCacheEvent
    permits KvCacheEvent.Stored, KvCacheEvent.Removed, KvCacheEvent.Cleared {

  /** One stored block: the engine's sequence hash and the local hash of its tokens. */
  record StoredBlock(long blockHash, long tokensHash) {}

  /**
   * Blocks newly cached, in parent-to-child order. The first block's parent is {@code
   * parentBlockHash}, or the start of the sequence when that is {@code null}.
   */
  record Stored(Long parentBlockHash, List<StoredBlock> blocks) implements KvCacheEvent {
    public Stored {
      blocks = List.copyOf(Objects.requireNonNull(blocks, "blocks"));
    }
  }

  /** Blocks evicted, by block hash. */
  record Removed(List<Long> blockHashes) implements KvCacheEvent {
    public Removed {
      blockHashes = List.copyOf(Objects.requireNonNull(blockHashes, "blockHashes"));
    }
  }

  /** Every block of the rank evicted at once. */
  record Cleared() implements KvCacheEvent {}

  /** {@code Stored} with the given parent ({@code null} for none) and blocks. */
  static Stored stored(Long parentBlockHash, StoredBlock... blocks) {
    return new Stored(parentBlockHash, List.of(blocks));
  }

  /** {@code Removed} for the given block hashes. */
  static Removed removed(long... blockHashes) {
    List<Long> hashes = new ArrayList<>(blockHashes.length);
    for (long h : blockHashes) {
      hashes.add(h);
    }
    return new Removed(hashes);
  }

  static Cleared cleared() {
    return new Cleared();
  }
}
