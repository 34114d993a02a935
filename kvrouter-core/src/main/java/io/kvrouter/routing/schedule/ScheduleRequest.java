package io.kvrouter.routing.schedule;

import java.util.Arrays;
import java.util.LinkedHashSet;

/**
 * What the scheduler needs of a request: its prompt length in tokens and the sequence hashes of its
 * complete KV blocks, in order. Repeated hashes are kept once (first occurrence), since a worker
 * holds a block once.
 *
 * <p>Without block hashes (active-block tracking off) the request adds no decode blocks; its prompt
 * still counts as prefill.
 *
 * @param inputTokens the prompt length (Dynamo's {@code isl}); {@code >= 0}
 * @param blockHashes the sequence hashes of the prompt's complete blocks; copied
 */
public record ScheduleRequest(int inputTokens, long[] blockHashes) {

  private static final long[] NONE = new long[0];

  public ScheduleRequest {
    if (inputTokens < 0) {
      throw new IllegalArgumentException("inputTokens must be >= 0: " + inputTokens);
    }
    blockHashes = distinct(blockHashes == null ? NONE : blockHashes);
  }

  /** A request of {@code inputTokens} tokens without block hashes. */
  public static ScheduleRequest ofTokens(int inputTokens) {
    return new ScheduleRequest(inputTokens, NONE);
  }

  /** The sequence hashes of the prompt's blocks, a copy. */
  @Override
  public long[] blockHashes() {
    return blockHashes.clone();
  }

  /** The prompt's distinct blocks. */
  public int blockCount() {
    return blockHashes.length;
  }

  /**
   * Prompt tokens a worker rank that caches the first {@code overlapBlocks} blocks has to prefill:
   * {@code max(0, inputTokens - overlapBlocks * blockSize)}.
   */
  public long newPrefillTokens(int overlapBlocks, int blockSize) {
    return Math.max(0L, inputTokens - (long) overlapBlocks * blockSize);
  }

  /** The hashes without a copy; callers must not write to them. */
  long[] hashes() {
    return blockHashes;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ScheduleRequest other
        && inputTokens == other.inputTokens
        && Arrays.equals(blockHashes, other.blockHashes);
  }

  @Override
  public int hashCode() {
    return 31 * inputTokens + Arrays.hashCode(blockHashes);
  }

  @Override
  public String toString() {
    return "ScheduleRequest[inputTokens=" + inputTokens + ", blocks=" + blockHashes.length + "]";
  }

  private static long[] distinct(long[] hashes) {
    long[] sorted = hashes.clone();
    Arrays.sort(sorted);
    boolean repeated = false;
    for (int i = 1; i < sorted.length && !repeated; i++) {
      repeated = sorted[i] == sorted[i - 1];
    }
    if (!repeated) {
      return hashes.clone();
    }
    LinkedHashSet<Long> seen = new LinkedHashSet<>();
    for (long h : hashes) {
      seen.add(h);
    }
    return seen.stream().mapToLong(Long::longValue).toArray();
  }
}
