package io.kvrouter.worker.kv;

/**
 * One full KV block as a {@link BlockPool} caches it: the engine hash that names it (the pool's key
 * and the hash its events carry) and what its stored event says of its content. The pool never
 * looks inside; how the block was named is its sequence's ({@link SequenceBlocks}), and which of
 * these its events need is its listeners' ({@link VllmEvents}, {@link DynamoEvents}).
 */
public sealed interface KvBlock {

  /** The engine hash, unsigned 64-bit in a {@code long}. */
  long hash();

  /**
   * A block named by vLLM's {@code sha256_cbor} hash of its tokens ({@link VllmSequence}); vLLM's
   * {@code BlockStored} carries the tokens.
   *
   * @param tokens its block-size tokens, not copied: nobody writes them
   * @param cacheSalt the salt vLLM hashed into it and lists in its {@code extra_keys}: the engine
   *     salt ({@code cache_salt}) of a salted sequence's first block; null for every other block
   */
  record Vllm(long hash, int[] tokens, String cacheSalt) implements KvBlock {

    /** A block without a salt of its own. */
    public Vllm(long hash, int[] tokens) {
      this(hash, tokens, null);
    }
  }

  /**
   * A block named by Dynamo's XXH3 hashes ({@link DynamoSequence}): its sequence hash, and the
   * local hash of its tokens that Dynamo's {@code Stored} carries as {@code tokens_hash}.
   */
  record Dynamo(long hash, long tokensHash) implements KvBlock {}
}
