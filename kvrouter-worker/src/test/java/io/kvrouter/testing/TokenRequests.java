package io.kvrouter.testing;

import io.kvrouter.worker.kv.BlockPool;
import io.kvrouter.worker.kv.KvAllocation;
import io.kvrouter.worker.kv.VllmSequence;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Drives a {@link BlockPool} with token arrays, as the fixed-pace worker drives it: each request
 * has its {@link VllmSequence}, and a later call's longer array appends its new tokens to it.
 * Thread-safe for distinct requests.
 */
public final class TokenRequests {
  private final BlockPool pool;
  private final Map<String, VllmSequence> sequences = new ConcurrentHashMap<>();

  public TokenRequests(BlockPool pool) {
    this.pool = pool;
  }

  public BlockPool pool() {
    return pool;
  }

  /** Holds the full blocks of a new request's prompt. */
  public KvAllocation allocate(String id, int[] prompt) {
    return allocate(id, prompt, null);
  }

  /** Holds the full blocks of a new request's prompt, salted with vLLM's {@code salt}. */
  public KvAllocation allocate(String id, int[] prompt, String salt) {
    VllmSequence sequence = new VllmSequence(pool.blockSize(), prompt, salt);
    KvAllocation result = pool.allocate(id, sequence, sequence.fullBlocks());
    if (result.allocated()) {
      sequences.put(id, sequence);
    }
    return result;
  }

  /** {@link #extend(String, int[], int)} over the whole array. */
  public KvAllocation extend(String id, int[] tokens) {
    return extend(id, tokens, tokens.length);
  }

  /**
   * Caches the blocks a running request filled: its tokens so far are {@code tokens[0..length)},
   * what was passed before unchanged.
   */
  public KvAllocation extend(String id, int[] tokens, int length) {
    VllmSequence sequence =
        sequences.getOrDefault(
            id, new VllmSequence(pool.blockSize(), Arrays.copyOf(tokens, length)));
    for (int i = sequence.length(); i < length; i++) {
      sequence.append(tokens[i]);
    }
    return pool.extend(id, sequence, sequence.fullBlocks());
  }

  public boolean release(String id) {
    sequences.remove(id);
    return pool.release(id);
  }

  public boolean clear() {
    return pool.clear();
  }
}
