package io.kvrouter.worker.kv;

import java.util.Arrays;

/**
 * The canonical CBOR (RFC 8949 §4.2.1, what Python's {@code cbor2.dumps(obj, canonical=True)}
 * writes) of the one shape vLLM hashes per block: {@code [bstr parent_digest, [uint token...],
 * extra_keys]} with {@code extra_keys} null, or the one-element tuple {@code (cache_salt,)} (an
 * array of one text string) that vLLM hashes into a salted sequence's first block, and of the seed
 * text the root hash is made from. Hand-written because this is all of CBOR the simulator needs;
 * every head takes its shortest form, which is what makes the bytes, and so the hashes,
 * reproducible. Not thread-safe: one instance per hashing thread.
 */
final class CanonicalCbor {
  private static final int UNSIGNED = 0;
  private static final int BYTES = 2;
  private static final int TEXT = 3;
  private static final int ARRAY = 4;
  private static final byte NULL = (byte) 0xf6;

  private byte[] buffer = new byte[256];
  private int size;

  /** The encoding of a text string (the {@code PYTHONHASHSEED} value the root is hashed from). */
  static byte[] text(String text) {
    byte[] utf8 = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    CanonicalCbor cbor = new CanonicalCbor();
    cbor.head(TEXT, utf8.length);
    cbor.append(utf8, 0, utf8.length);
    return cbor.toByteArray();
  }

  /**
   * Encodes {@code [parent, tokens[from..from+count), null]}, replacing what was encoded before.
   * Token ids are never negative (they are vocabulary indices).
   */
  CanonicalCbor block(byte[] parent, int[] tokens, int from, int count) {
    return block(parent, tokens, from, count, null);
  }

  /**
   * Encodes {@code [parent, tokens[from..from+count), extra]}: {@code extra} is null without a
   * salt, else {@code [salt]}, replacing what was encoded before.
   */
  CanonicalCbor block(byte[] parent, int[] tokens, int from, int count, String salt) {
    size = 0;
    head(ARRAY, 3);
    head(BYTES, parent.length);
    append(parent, 0, parent.length);
    head(ARRAY, count);
    for (int i = from; i < from + count; i++) {
      if (tokens[i] < 0) {
        throw new IllegalArgumentException("negative token id " + tokens[i] + " at " + i);
      }
      head(UNSIGNED, tokens[i]);
    }
    if (salt == null) {
      ensure(1);
      buffer[size++] = NULL;
    } else {
      byte[] utf8 = salt.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      head(ARRAY, 1);
      head(TEXT, utf8.length);
      append(utf8, 0, utf8.length);
    }
    return this;
  }

  byte[] buffer() {
    return buffer;
  }

  int size() {
    return size;
  }

  byte[] toByteArray() {
    return Arrays.copyOf(buffer, size);
  }

  /** A major type with its argument in the fewest bytes (values here are below 2^32). */
  private void head(int major, long value) {
    ensure(9);
    int type = major << 5;
    if (value < 24) {
      buffer[size++] = (byte) (type | value);
    } else if (value < 1L << 8) {
      buffer[size++] = (byte) (type | 24);
      buffer[size++] = (byte) value;
    } else if (value < 1L << 16) {
      buffer[size++] = (byte) (type | 25);
      buffer[size++] = (byte) (value >>> 8);
      buffer[size++] = (byte) value;
    } else if (value < 1L << 32) {
      buffer[size++] = (byte) (type | 26);
      for (int shift = 24; shift >= 0; shift -= 8) {
        buffer[size++] = (byte) (value >>> shift);
      }
    } else {
      buffer[size++] = (byte) (type | 27);
      for (int shift = 56; shift >= 0; shift -= 8) {
        buffer[size++] = (byte) (value >>> shift);
      }
    }
  }

  private void append(byte[] bytes, int from, int length) {
    ensure(length);
    System.arraycopy(bytes, from, buffer, size, length);
    size += length;
  }

  private void ensure(int more) {
    if (size + more > buffer.length) {
      buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, size + more));
    }
  }
}
