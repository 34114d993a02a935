package io.kvrouter.worker.kv;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * vLLM's prefix-caching block hash with {@code --prefix-caching-hash-algo sha256_cbor} and {@code
 * PYTHONHASHSEED=0} (see {@code docs/interop.md} §5.4), the setting under which vLLM's hashes are
 * reproducible at all and which peers that mirror them (llm-d, Mooncake Conductor) pin:
 *
 * <pre>
 * NONE_HASH = SHA-256(cbor("0"))                                  (bytes 0x61 0x30)
 * h_i       = SHA-256(cbor([h_(i-1) or NONE_HASH, [tokens of block i], extra_i]))
 * extra_0   = [cache_salt] for a salted sequence, else null;  extra_i = null for i &gt; 0
 * </pre>
 *
 * (vLLM's {@code generate_block_hash_extra_keys} in {@code vllm/v1/core/kv_cache_utils.py} adds the
 * request's {@code cache_salt} to the extra keys of the block that starts at token 0 only; a LoRA
 * adapter or multimodal input would add more keys, which the simulated worker does not have.)
 *
 * <p>Only full blocks are hashed; a trailing partial block has no hash (vLLM caches only full
 * blocks). The simulated worker uses these hashes as its engine block hashes so its events carry
 * exactly what a real vLLM worker would send for the same tokens. Golden values come from {@code
 * scripts/golden/vllm_block_hashes.py}.
 *
 * <p>Not thread-safe (it reuses its digest and encoding buffers); cheap to create, so make one per
 * thread or per call.
 */
public final class VllmBlockHasher {
  /** The seed vLLM reads from {@code PYTHONHASHSEED}; the root is the hash of this text. */
  public static final String HASH_SEED = "0";

  private static final byte[] NONE_HASH = sha256().digest(CanonicalCbor.text(HASH_SEED));

  private final int blockSize;
  private final MessageDigest sha256 = sha256();
  private final CanonicalCbor cbor = new CanonicalCbor();

  /**
   * @param blockSize tokens per block, vLLM's {@code --block-size}
   */
  public VllmBlockHasher(int blockSize) {
    if (blockSize < 1) {
      throw new IllegalArgumentException("blockSize must be >= 1: " + blockSize);
    }
    this.blockSize = blockSize;
  }

  /** The root every chain starts from: {@code SHA-256(0x61 0x30)}. A copy. */
  public static byte[] noneHash() {
    return NONE_HASH.clone();
  }

  /** {@link #noneHash()} in hex: {@code 4e1195df...e61c3e}. */
  public static String noneHashHex() {
    return HexFormat.of().formatHex(NONE_HASH);
  }

  public int blockSize() {
    return blockSize;
  }

  /** The hashes of every full block of {@code tokens}, chained from the root. */
  public List<VllmBlockHash> hashBlocks(int[] tokens) {
    return hashBlocks(tokens, null);
  }

  /**
   * The hashes of every full block of {@code tokens}, chained from the root, the first one salted
   * with vLLM's {@code cache_salt} {@code salt} (null: none).
   */
  public List<VllmBlockHash> hashBlocks(int[] tokens, String salt) {
    List<VllmBlockHash> hashes = new ArrayList<>(tokens.length / blockSize);
    if (tokens.length < blockSize) {
      return hashes;
    }
    cbor.block(NONE_HASH, tokens, 0, blockSize, salt);
    sha256.update(cbor.buffer(), 0, cbor.size());
    VllmBlockHash first = new VllmBlockHash(sha256.digest());
    hashes.add(first);
    hashes.addAll(hashBlocks(first, tokens, 1, tokens.length / blockSize - 1));
    return hashes;
  }

  /**
   * The hashes of {@code count} full blocks starting at block index {@code firstBlock} of {@code
   * tokens}, chained from {@code parent} (the hash of block {@code firstBlock - 1}, or {@code null}
   * when {@code firstBlock} is 0). This continues a chain as a sequence grows without rehashing its
   * start.
   */
  public List<VllmBlockHash> hashBlocks(
      VllmBlockHash parent, int[] tokens, int firstBlock, int count) {
    if (firstBlock < 0 || count < 0 || (long) (firstBlock + count) * blockSize > tokens.length) {
      throw new IllegalArgumentException(
          "blocks "
              + firstBlock
              + ".."
              + (firstBlock + count)
              + " of size "
              + blockSize
              + " do not fit in "
              + tokens.length
              + " tokens");
    }
    if ((parent == null) != (firstBlock == 0)) {
      throw new IllegalArgumentException("a parent is needed exactly when firstBlock > 0");
    }
    List<VllmBlockHash> hashes = new ArrayList<>(count);
    byte[] previous = parent == null ? NONE_HASH : parent.digestBytes();
    for (int b = firstBlock; b < firstBlock + count; b++) {
      cbor.block(previous, tokens, b * blockSize, blockSize);
      sha256.update(cbor.buffer(), 0, cbor.size());
      VllmBlockHash hash = new VllmBlockHash(sha256.digest());
      hashes.add(hash);
      previous = hash.digestBytes();
    }
    return hashes;
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
