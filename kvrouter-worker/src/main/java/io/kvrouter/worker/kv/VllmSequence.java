package io.kvrouter.worker.kv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A request's tokens, its prompt and then its output as it is generated, with every full block
 * named as vLLM names it: {@code sha256_cbor} chained from the root of the hash seed ({@link
 * VllmBlockHasher}). The prompt's blocks are hashed when the sequence is made, each later block
 * when its last token is appended, on the thread that appends it; a trailing partial block has no
 * name (vLLM caches only full blocks).
 *
 * <p>Not thread-safe: the request's own context makes it and grows it.
 */
public final class VllmSequence implements SequenceBlocks {
  private final int blockSize;
  private final VllmBlockHasher hasher;
  private final List<VllmBlockHash> hashes = new ArrayList<>();
  private final String salt;

  /** The tokens in {@code tokens[0..length)}; the prompt array until the first append. */
  private int[] tokens;

  private int length;

  /**
   * @param prompt not copied, never written
   */
  public VllmSequence(int blockSize, int[] prompt) {
    this(blockSize, prompt, null);
  }

  /**
   * A sequence salted with vLLM's {@code cache_salt} {@code salt} (null: none): its first block's
   * hash, and so every later one, differs from an unsalted or otherwise salted sequence's.
   *
   * @param prompt not copied, never written
   */
  public VllmSequence(int blockSize, int[] prompt, String salt) {
    this.blockSize = blockSize;
    this.hasher = new VllmBlockHasher(blockSize);
    this.tokens = prompt;
    this.length = prompt.length;
    this.salt = salt;
    hashes.addAll(hasher.hashBlocks(prompt, salt));
  }

  /** Appends one token; if it fills a block, names that block. */
  public void append(int token) {
    if (length == tokens.length) {
      tokens = Arrays.copyOf(tokens, Math.max(16, tokens.length * 2));
    }
    tokens[length++] = token;
    if (length % blockSize == 0) {
      if (hashes.isEmpty()) {
        hashes.addAll(hasher.hashBlocks(Arrays.copyOf(tokens, blockSize), salt));
      } else {
        hashes.addAll(hasher.hashBlocks(hashes.get(hashes.size() - 1), tokens, hashes.size(), 1));
      }
    }
  }

  /** Tokens so far. */
  public int length() {
    return length;
  }

  /** Full blocks so far, every one named. */
  public int fullBlocks() {
    return hashes.size();
  }

  @Override
  public long hash(int index) {
    return hashes.get(index).value();
  }

  @Override
  public KvBlock block(int index) {
    int start = index * blockSize;
    return new KvBlock.Vllm(
        hash(index),
        Arrays.copyOfRange(tokens, start, start + blockSize),
        index == 0 ? salt : null);
  }
}
