package io.kvrouter.worker.kv;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * One block's hash as vLLM computes it: the full 32-byte SHA-256 digest, which the next block's
 * hash chains from, and the 64-bit value vLLM puts in its KV events ({@code
 * VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES=1}, the default): the digest's last eight bytes read
 * big-endian. That value is unsigned in vLLM and often above 2^63; a {@code long} holds the same
 * bits, as everywhere in {@code protocol.vllm}. The digest cannot be recovered from the value,
 * which is why both are kept.
 */
public final class VllmBlockHash {
  private final byte[] digest;
  private final long value;

  VllmBlockHash(byte[] digest) {
    if (digest.length != 32) {
      throw new IllegalArgumentException("a SHA-256 digest has 32 bytes, not " + digest.length);
    }
    this.digest = digest;
    this.value = eventValue(digest);
  }

  /** The value vLLM publishes for a digest: its last eight bytes, big-endian. */
  public static long eventValue(byte[] digest) {
    long v = 0;
    for (int i = digest.length - 8; i < digest.length; i++) {
      v = v << 8 | (digest[i] & 0xff);
    }
    return v;
  }

  /** A copy of the 32-byte digest. */
  public byte[] digest() {
    return digest.clone();
  }

  /** The engine hash as published in {@code BlockStored}/{@code BlockRemoved}. */
  public long value() {
    return value;
  }

  /** The digest in lower-case hex. */
  public String hex() {
    return HexFormat.of().formatHex(digest);
  }

  /** The digest without a copy, for chaining inside this package. */
  byte[] digestBytes() {
    return digest;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof VllmBlockHash other && Arrays.equals(digest, other.digest);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(value);
  }

  @Override
  public String toString() {
    return hex() + " (" + Long.toUnsignedString(value) + ")";
  }
}
