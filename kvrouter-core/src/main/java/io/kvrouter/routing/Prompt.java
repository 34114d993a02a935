package io.kvrouter.routing;

import io.kvrouter.protocol.hash.BlockHasher;
import java.util.Objects;

/**
 * A request's prompt as the routing policies see it: its length and the hashes of its complete
 * blocks. The live router has the token ids and hashes them the first time a policy asks ({@link
 * #ofTokens}), so policies that never look at the blocks (round-robin, random, least-loaded,
 * power-of-two) cost no hashing; the simulator has only the hashes, from its trace ({@link
 * #hashed}). The arrays are shared, not copied: nobody may change them.
 *
 * <p>Thread-safe: a request's prompt may be read again on another thread (a failover); the hashes
 * are computed at most a few times if threads race, always to the same values.
 */
public final class Prompt {
  private final int inputTokens;
  private final int[] tokens;
  private final BlockHasher hasher;
  private volatile Blocks blocks;

  /** Local hashes ({@code tokens_hash}) and chained sequence hashes of the complete blocks. */
  private record Blocks(long[] local, long[] sequence) {}

  private Prompt(int inputTokens, int[] tokens, BlockHasher hasher, Blocks blocks) {
    this.inputTokens = inputTokens;
    this.tokens = tokens;
    this.hasher = hasher;
    this.blocks = blocks;
  }

  /** A prompt of {@code tokens}, hashed by {@code hasher} when first asked. */
  public static Prompt ofTokens(int[] tokens, BlockHasher hasher) {
    Objects.requireNonNull(tokens, "tokens");
    Objects.requireNonNull(hasher, "hasher");
    return new Prompt(tokens.length, tokens, hasher, null);
  }

  /**
   * A prompt of {@code inputTokens} tokens whose complete blocks are already hashed.
   *
   * @param localHashes local hashes of the prompt's complete blocks ({@code tokens_hash})
   * @param sequenceHashes their chained sequence hashes
   */
  public static Prompt hashed(int inputTokens, long[] localHashes, long[] sequenceHashes) {
    if (localHashes.length != sequenceHashes.length) {
      throw new IllegalArgumentException(
          localHashes.length + " local hashes, " + sequenceHashes.length + " sequence hashes");
    }
    return new Prompt(inputTokens, null, null, new Blocks(localHashes, sequenceHashes));
  }

  /** The prompt's length in tokens. */
  public int inputTokens() {
    return inputTokens;
  }

  /** The local hashes of the prompt's complete blocks, which the KV index matches. */
  public long[] localHashes() {
    return blocks().local();
  }

  /** The chained sequence hashes of the prompt's complete blocks: each names its whole prefix. */
  public long[] sequenceHashes() {
    return blocks().sequence();
  }

  /** Whether the blocks were hashed yet: for tests. */
  boolean isHashed() {
    return blocks != null;
  }

  private Blocks blocks() {
    Blocks hashed = blocks;
    if (hashed == null) {
      long[] local = hasher.localHashes(tokens);
      hashed = new Blocks(local, BlockHasher.chain(local));
      blocks = hashed;
    }
    return hashed;
  }
}
