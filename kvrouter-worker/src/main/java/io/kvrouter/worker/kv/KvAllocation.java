package io.kvrouter.worker.kv;

/**
 * What {@link BlockPool#allocate}, {@link BlockPool#extend} or {@link BlockPool#admit} did with a
 * sequence's blocks.
 *
 * @param allocated whether the blocks are now held; when false nothing changed
 * @param cachedBlocks blocks already cached (prefix hits, on active or inactive blocks)
 * @param newBlocks blocks that needed a free slot (stored at once, or reserved for the engine)
 * @param freeBlocks slots there were for them: empty ones plus inactive blocks that could be
 *     evicted (not counting the sequence's own cached blocks, which it reuses)
 */
public record KvAllocation(boolean allocated, int cachedBlocks, int newBlocks, int freeBlocks) {

  /** Why the allocation failed, as the engine reports it when it refuses a request. */
  public String refusal() {
    return "KV cache full: " + newBlocks + " blocks needed, " + freeBlocks + " free";
  }
}
