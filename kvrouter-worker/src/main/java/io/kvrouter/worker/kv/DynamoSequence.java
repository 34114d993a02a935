package io.kvrouter.worker.kv;

import io.kvrouter.common.SplitMix;
import java.util.Arrays;

/**
 * A request known by the router's hashes of its prompt (Dynamo's XXH3, {@code
 * protocol.hash.BlockHasher}) rather than by its tokens, as the simulator knows its trace's
 * requests: prompt block {@code i} is named by its sequence hash and carries its local hash.
 *
 * <p>The blocks past the prompt hold output tokens that no other request shares and that nobody
 * knows; each gets a pseudo-random name drawn from the sequence's seed and its index, so sequences
 * with different seeds never share them.
 *
 * <p>Not thread-safe: one engine reads it.
 */
public final class DynamoSequence implements SequenceBlocks {
  private final long seed;
  private long[] sequenceHashes;
  private long[] localHashes;

  /**
   * @param sequenceHashes the prompt's full blocks' sequence hashes, in order; not copied
   * @param localHashes their local hashes; not copied
   * @param seed names the output blocks; distinct for every request that may share a cache
   */
  public DynamoSequence(long[] sequenceHashes, long[] localHashes, long seed) {
    if (sequenceHashes.length != localHashes.length) {
      throw new IllegalArgumentException(
          sequenceHashes.length + " sequence hashes, " + localHashes.length + " local hashes");
    }
    this.sequenceHashes = sequenceHashes;
    this.localHashes = localHashes;
    this.seed = seed;
  }

  /** A seed for the request {@code id}: distinct ids give distinct seeds but by a 2^-64 chance. */
  public static long seedOf(String id) {
    long seed = id.length();
    for (int i = 0; i < id.length(); i++) {
      seed = SplitMix.mix(seed * 0x9E3779B97F4A7C15L + id.charAt(i));
    }
    return seed;
  }

  @Override
  public long hash(int index) {
    extendTo(index + 1);
    return sequenceHashes[index];
  }

  @Override
  public KvBlock block(int index) {
    extendTo(index + 1);
    return new KvBlock.Dynamo(sequenceHashes[index], localHashes[index]);
  }

  /** Names the output blocks up to {@code blocks}, in room grown by doubling. */
  private void extendTo(int blocks) {
    int have = sequenceHashes.length;
    if (blocks <= have) {
      return;
    }
    int length = Math.max(blocks, have * 2);
    sequenceHashes = Arrays.copyOf(sequenceHashes, length);
    localHashes = Arrays.copyOf(localHashes, length);
    for (int i = have; i < length; i++) {
      localHashes[i] = SplitMix.mix(seed * 0x9E3779B97F4A7C15L + i + 1);
      sequenceHashes[i] = SplitMix.mix(localHashes[i] ^ 0xD1B54A32D192ED03L);
    }
  }
}
