package io.kvrouter.worker.kv;

/**
 * What {@link KvCacheManager#allocate} or {@link KvCacheManager#extend} did with a sequence's full
 * blocks.
 *
 * @param allocated whether the blocks are now held; when false nothing changed
 * @param cachedBlocks blocks already cached (prefix hits, on active or inactive blocks)
 * @param newBlocks blocks that needed a free slot
 * @param freeBlocks slots there were for them: empty ones plus inactive blocks that could be
 *     evicted (not counting the sequence's own cached blocks, which it reuses)
 */
public record KvAllocation(boolean allocated, int cachedBlocks, int newBlocks, int freeBlocks) {

  /** Why the allocation failed, as the engine reports it when it refuses a request. */
  public String refusal() {
    return "KV cache full: " + newBlocks + " blocks needed, " + freeBlocks + " free";
  }
}
