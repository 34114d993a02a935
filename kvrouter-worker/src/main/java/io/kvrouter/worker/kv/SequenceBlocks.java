package io.kvrouter.worker.kv;

/**
 * The full KV blocks of one request's sequence (prompt, then output), named: what a {@link
 * BlockPool} looks up and stores for the request. The naming is the block hashing of the cache:
 * vLLM's {@code sha256_cbor} over the tokens ({@link VllmSequence}, the live worker's) or Dynamo's
 * XXH3 hashes ({@link DynamoSequence}, the simulator's).
 *
 * <p>Reading a name never hashes: an implementation names each block before it is asked for (so the
 * pool, which reads names under its lock, never hashes there). Not thread-safe: a request's
 * sequence is read and grown by one thread at a time.
 */
public interface SequenceBlocks {

  /**
   * The engine hash of block {@code index} (0 for the first).
   *
   * @throws IndexOutOfBoundsException if that block is not named yet
   */
  long hash(int index);

  /**
   * Block {@code index} as the pool stores it.
   *
   * @throws IndexOutOfBoundsException if that block is not named yet
   */
  KvBlock block(int index);
}
