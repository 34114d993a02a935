package io.kvrouter.protocol.hash;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import net.openhft.hashing.LongHashFunction;

/**
 * The canonical KV block hasher, bit-compatible with NVIDIA Dynamo's router ({@code
 * lib/kv-router/src/protocols.rs}: {@code compute_block_hash_for_seq}, {@code
 * compute_seq_hash_for_block}, {@code compute_next_seq_hash}; the seed derivation is {@code
 * compute_salt_hash} in the kv-hashing crate's {@code salt.rs}).
 *
 * <h2>Hash values are u64 held in a Java {@code long}</h2>
 *
 * Every hash this class returns (local block hash, sequence hash, seed) is an unsigned 64-bit
 * integer stored bit-for-bit in a {@code long}: values of 2<sup>63</sup> and above appear negative.
 * Compare them with {@code ==} (never with {@code <} unless through {@link Long#compareUnsigned}),
 * and print or parse them with {@link #toUnsignedString(long)} / {@link #parseUnsigned(String)},
 * which match Dynamo's decimal rendering. Token ids are u32 held in an {@code int} the same way: a
 * token id of 2<sup>31</sup> or above is a negative {@code int} with the same 32 bits.
 *
 * <h2>Byte layout and formulas</h2>
 *
 * <pre>
 *  tokens  t[0] t[1] ... t[bs-1] | t[bs] ... t[2bs-1] | ... | t[n·bs] ... t[len-1]
 *          '------ block 0 ------' '----- block 1 ----'       '- partial: ignored -'
 *          blocks = floor(len / bs)
 *
 *  block i bytes (4·bs bytes), each token as a little-endian u32:
 *          t[i·bs] = 0x0A0B0C0D  ->  0D 0C 0B 0A | next token ... | ... (4·bs bytes)
 *
 *  local[i] = XXH3_64(block_i_bytes, seed)                         ("LocalBlockHash", tokens_hash)
 *
 *  seq[0]   = local[0]
 *  seq[i]   = XXH3_64( LE_u64(seq[i-1]) ‖ LE_u64(local[i]), 1337 )  16-byte input, i &ge; 1
 *
 *  seed     = 1337                                               no LoRA, no namespace
 *           +wrap XXH3_64(utf8(lora_name), seed 0)               if lora_name non-empty
 *           +wrap XXH3_64(utf8(cache_namespace), seed 1)         if cache_namespace non-empty
 * </pre>
 *
 * {@code XXH3_64(bytes, seed)} is {@code xxh3_64_with_seed} of the reference xxHash library (here
 * {@code LongHashFunction.xx3(seed)} of zero-allocation-hashing), and {@code +wrap} is addition
 * modulo 2<sup>64</sup>. The chain seed is always {@value #CHAIN_SEED}: LoRA and namespace reach
 * the sequence hashes only through the local hashes. A {@code null} or empty LoRA name or namespace
 * counts as absent, as in Dynamo. Dynamo's Eagle windows (bs + 1 tokens, stride bs) and multimodal
 * extras are not supported here.
 *
 * <p>Reference vectors (Dynamo's own unit test and {@code docs/interop.md} §1): {@code
 * XXH3_64("test data", 1337) = 13226331709069118873}; with bs = 16, local(tokens 0..15) =
 * 15310707395893867146, local(16..31) = 15292316782987903195, seq[1] = 13769157705258532664; the
 * seed for LoRA {@code "adapter-a"} is 8842669519798868182, giving local(0..15) =
 * 17429507120064042683.
 *
 * <h2>Performance</h2>
 *
 * On a little-endian platform (x86-64, AArch64: every platform the router ships on) a block is
 * hashed straight out of the {@code int[]} with {@code LongHashFunction.hashInts(int[], off, len)},
 * which reads the array's bytes in <em>native</em> order, which there is exactly the little-endian
 * u32 layout above: no copy and no allocation per block. On a big-endian platform the class falls
 * back to building the little-endian bytes in one scratch {@code byte[]} per call. The bulk methods
 * allocate nothing per block; the {@code ...(..., long[] out, int outOffset)} variants allocate
 * nothing at all on the fast path apart from one 16-byte scratch per call when chaining. Heap
 * arrays only: no direct {@code ByteBuffer} (that would need {@code --add-exports}).
 *
 * <p>Instances are immutable and thread-safe; they have value semantics over (block size, seed).
 */
public final class BlockHasher {
  /** Dynamo's {@code XXH3_SEED}: the seed of local block hashes without LoRA or namespace. */
  public static final long DEFAULT_SEED = 1337L;

  /** The seed of the sequence-hash chain ({@code CHAIN_XXH3_SEED}); never salted. */
  public static final long CHAIN_SEED = 1337L;

  /** Inner seed for hashing a LoRA adapter name into the block seed. */
  static final long LORA_NAME_SEED = 0L;

  /** Inner seed for hashing a cache namespace (salt) into the block seed. */
  static final long NAMESPACE_SEED = 1L;

  /** Largest block size whose byte image (4 bytes per token) still fits in a Java array. */
  public static final int MAX_BLOCK_SIZE = Integer.MAX_VALUE / Integer.BYTES;

  /** Whether {@code hashInts} (native byte order) sees the little-endian layout directly. */
  static final boolean NATIVE_LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

  private static final LongHashFunction CHAIN = LongHashFunction.xx3(CHAIN_SEED);
  private static final LongHashFunction LORA_NAME = LongHashFunction.xx3(LORA_NAME_SEED);
  private static final LongHashFunction NAMESPACE = LongHashFunction.xx3(NAMESPACE_SEED);
  private static final VarHandle INT_LE =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final int blockSize;
  private final long seed;
  private final LongHashFunction local;

  /** True: hash straight from the int[] (little-endian natives only). False: build LE bytes. */
  private final boolean direct;

  private BlockHasher(int blockSize, long seed, boolean direct) {
    if (blockSize < 1 || blockSize > MAX_BLOCK_SIZE) {
      throw new IllegalArgumentException(
          "blockSize must be between 1 and " + MAX_BLOCK_SIZE + ", got " + blockSize);
    }
    this.blockSize = blockSize;
    this.seed = seed;
    this.local = LongHashFunction.xx3(seed);
    this.direct = direct;
  }

  /**
   * The hasher for {@code blockSize}-token blocks with the default seed {@value #DEFAULT_SEED}.
   *
   * @throws IllegalArgumentException if {@code blockSize} is not in [1, {@link #MAX_BLOCK_SIZE}]
   */
  public static BlockHasher of(int blockSize) {
    return new BlockHasher(blockSize, DEFAULT_SEED, NATIVE_LITTLE_ENDIAN);
  }

  /**
   * The hasher for a request on LoRA adapter {@code loraName} ({@code null} or empty: none), that
   * is with seed {@code seedFor(loraName, null)}.
   *
   * @throws IllegalArgumentException if {@code blockSize} is not in [1, {@link #MAX_BLOCK_SIZE}]
   */
  public static BlockHasher of(int blockSize, String loraName) {
    return of(blockSize, loraName, null);
  }

  /**
   * The hasher for a request on LoRA adapter {@code loraName} in cache namespace {@code
   * cacheNamespace} (either {@code null} or empty: absent), with seed {@link #seedFor}.
   *
   * @throws IllegalArgumentException if {@code blockSize} is not in [1, {@link #MAX_BLOCK_SIZE}]
   */
  public static BlockHasher of(int blockSize, String loraName, String cacheNamespace) {
    return new BlockHasher(blockSize, seedFor(loraName, cacheNamespace), NATIVE_LITTLE_ENDIAN);
  }

  /**
   * The hasher with an explicit local-block seed (a u64 in a {@code long}); the chain seed stays
   * {@value #CHAIN_SEED}.
   *
   * @throws IllegalArgumentException if {@code blockSize} is not in [1, {@link #MAX_BLOCK_SIZE}]
   */
  public static BlockHasher withSeed(int blockSize, long seed) {
    return new BlockHasher(blockSize, seed, NATIVE_LITTLE_ENDIAN);
  }

  /** Test hook: the same hasher forced onto the portable little-endian byte[] path. */
  static BlockHasher portable(int blockSize, long seed) {
    return new BlockHasher(blockSize, seed, false);
  }

  /**
   * The local-block seed for a LoRA adapter and a cache namespace, as Dynamo's {@code
   * compute_salt_hash}: {@code 1337 +wrap XXH3_64(utf8(loraName), 0) +wrap
   * XXH3_64(utf8(cacheNamespace), 1)}, each term only when its string is non-null and non-empty.
   * With neither it is {@value #DEFAULT_SEED}.
   */
  public static long seedFor(String loraName, String cacheNamespace) {
    long s = DEFAULT_SEED;
    if (loraName != null && !loraName.isEmpty()) {
      s += LORA_NAME.hashBytes(loraName.getBytes(StandardCharsets.UTF_8));
    }
    if (cacheNamespace != null && !cacheNamespace.isEmpty()) {
      s += NAMESPACE.hashBytes(cacheNamespace.getBytes(StandardCharsets.UTF_8));
    }
    return s;
  }

  /** Tokens per block. */
  public int blockSize() {
    return blockSize;
  }

  /** The local-block seed (u64 in a {@code long}). */
  public long seed() {
    return seed;
  }

  /**
   * How many complete blocks {@code tokenCount} tokens make: {@code floor(tokenCount / blockSize)}.
   *
   * @throws IllegalArgumentException if {@code tokenCount} is negative
   */
  public int blockCount(int tokenCount) {
    if (tokenCount < 0) {
      throw new IllegalArgumentException("tokenCount must be >= 0, got " + tokenCount);
    }
    return tokenCount / blockSize;
  }

  /**
   * The local hash of the one block {@code tokens[offset, offset + blockSize)}.
   *
   * @throws IllegalArgumentException if that range is not inside {@code tokens}
   */
  public long localHash(int[] tokens, int offset) {
    Objects.requireNonNull(tokens, "tokens");
    checkRange("tokens", tokens.length, offset, blockSize);
    if (direct) {
      return local.hashInts(tokens, offset, blockSize);
    }
    byte[] scratch = new byte[blockSize * Integer.BYTES];
    return hashPortable(tokens, offset, scratch);
  }

  /** The local hashes of every complete block of {@code tokens} (a new array, maybe empty). */
  public long[] localHashes(int[] tokens) {
    Objects.requireNonNull(tokens, "tokens");
    return localHashes(tokens, 0, tokens.length);
  }

  /**
   * The local hashes of every complete block of {@code tokens[offset, offset + length)}, in a new
   * array of {@code blockCount(length)} elements; a trailing partial block is ignored.
   *
   * @throws IllegalArgumentException if the range is not inside {@code tokens}
   */
  public long[] localHashes(int[] tokens, int offset, int length) {
    Objects.requireNonNull(tokens, "tokens");
    checkRange("tokens", tokens.length, offset, length);
    long[] out = new long[length / blockSize];
    localHashesUnchecked(tokens, offset, out.length, out, 0);
    return out;
  }

  /**
   * Writes the local hashes of every complete block of {@code tokens[offset, offset + length)} into
   * {@code out[outOffset, outOffset + blockCount(length))} and returns that count; a trailing
   * partial block is ignored. Allocates nothing on little-endian platforms.
   *
   * @throws IllegalArgumentException if the token range is not inside {@code tokens} or {@code out}
   *     has no room for the hashes at {@code outOffset}
   */
  public int localHashes(int[] tokens, int offset, int length, long[] out, int outOffset) {
    Objects.requireNonNull(tokens, "tokens");
    Objects.requireNonNull(out, "out");
    checkRange("tokens", tokens.length, offset, length);
    int blocks = length / blockSize;
    checkRange("out", out.length, outOffset, blocks);
    localHashesUnchecked(tokens, offset, blocks, out, outOffset);
    return blocks;
  }

  /** The sequence hashes of every complete block of {@code tokens} (a new array, maybe empty). */
  public long[] sequenceHashes(int[] tokens) {
    long[] out = localHashes(tokens);
    chainUnchecked(out, 0, out.length, out, 0, direct);
    return out;
  }

  /**
   * Writes the sequence hashes of every complete block of {@code tokens[offset, offset + length)}
   * into {@code out[outOffset, outOffset + blockCount(length))} and returns that count. Same as
   * {@link #localHashes(int[], int, int, long[], int)} followed by {@link #chain(long[], int, int,
   * long[], int)} in place.
   *
   * @throws IllegalArgumentException as {@link #localHashes(int[], int, int, long[], int)}
   */
  public int sequenceHashes(int[] tokens, int offset, int length, long[] out, int outOffset) {
    int blocks = localHashes(tokens, offset, length, out, outOffset);
    chainUnchecked(out, outOffset, blocks, out, outOffset, direct);
    return blocks;
  }

  /**
   * One step of the chain: {@code XXH3_64(LE_u64(parentSequenceHash) ‖ LE_u64(localHash), 1337)}.
   * Allocates a 16-byte scratch; prefer {@link #chain(long[], int, int, long[], int)} for runs.
   */
  public static long nextSequenceHash(long parentSequenceHash, long localHash) {
    return nextSequenceHash(parentSequenceHash, localHash, NATIVE_LITTLE_ENDIAN);
  }

  static long nextSequenceHash(long parentSequenceHash, long localHash, boolean direct) {
    if (direct) {
      return CHAIN.hashLongs(new long[] {parentSequenceHash, localHash});
    }
    byte[] bytes = new byte[2 * Long.BYTES];
    LONG_LE.set(bytes, 0, parentSequenceHash);
    LONG_LE.set(bytes, Long.BYTES, localHash);
    return CHAIN.hashBytes(bytes);
  }

  /**
   * The sequence hashes of a run of local hashes starting at block 0 of a sequence: {@code seq[0] =
   * local[0]}, {@code seq[i] = nextSequenceHash(seq[i-1], local[i])}. A new array.
   */
  public static long[] chain(long[] localHashes) {
    Objects.requireNonNull(localHashes, "localHashes");
    long[] out = new long[localHashes.length];
    chainUnchecked(localHashes, 0, out.length, out, 0, NATIVE_LITTLE_ENDIAN);
    return out;
  }

  /**
   * Writes the sequence hashes of {@code localHashes[offset, offset + count)} (block 0 of the
   * sequence at {@code offset}) into {@code out[outOffset, outOffset + count)}. {@code out} may be
   * {@code localHashes} itself, for an in-place chain, when {@code outOffset <= offset}.
   *
   * @throws IllegalArgumentException if a range is outside its array, or the output would overlap
   *     the input ahead of where it is read ({@code out == localHashes && outOffset > offset} with
   *     overlapping ranges)
   */
  public static void chain(long[] localHashes, int offset, int count, long[] out, int outOffset) {
    Objects.requireNonNull(localHashes, "localHashes");
    Objects.requireNonNull(out, "out");
    checkRange("localHashes", localHashes.length, offset, count);
    checkRange("out", out.length, outOffset, count);
    if (out == localHashes && outOffset > offset && outOffset < offset + count) {
      throw new IllegalArgumentException(
          "in-place chain needs outOffset <= offset, got offset "
              + offset
              + ", outOffset "
              + outOffset);
    }
    chainUnchecked(localHashes, offset, count, out, outOffset, NATIVE_LITTLE_ENDIAN);
  }

  /** Test hook: {@link #chain(long[])} on the chosen path. */
  static long[] chain(long[] localHashes, boolean direct) {
    long[] out = new long[localHashes.length];
    chainUnchecked(localHashes, 0, out.length, out, 0, direct);
    return out;
  }

  /** A u64 hash in unsigned decimal, as Dynamo prints it (e.g. "13226331709069118873"). */
  public static String toUnsignedString(long hash) {
    return Long.toUnsignedString(hash);
  }

  /**
   * Parses an unsigned decimal u64 (0 .. 18446744073709551615) into its {@code long} bits.
   *
   * @throws NumberFormatException if {@code text} is not such a number
   */
  public static long parseUnsigned(String text) {
    return Long.parseUnsignedLong(text);
  }

  private void localHashesUnchecked(
      int[] tokens, int offset, int blocks, long[] out, int outOffset) {
    int bs = blockSize;
    if (direct) {
      LongHashFunction fn = local;
      for (int b = 0, t = offset; b < blocks; b++, t += bs) {
        out[outOffset + b] = fn.hashInts(tokens, t, bs);
      }
    } else if (blocks > 0) {
      byte[] scratch = new byte[bs * Integer.BYTES];
      for (int b = 0, t = offset; b < blocks; b++, t += bs) {
        out[outOffset + b] = hashPortable(tokens, t, scratch);
      }
    }
  }

  /** Hashes tokens[offset, offset + blockSize) via explicit little-endian bytes in scratch. */
  private long hashPortable(int[] tokens, int offset, byte[] scratch) {
    for (int i = 0; i < blockSize; i++) {
      INT_LE.set(scratch, i * Integer.BYTES, tokens[offset + i]);
    }
    return local.hashBytes(scratch);
  }

  private static void chainUnchecked(
      long[] in, int offset, int count, long[] out, int outOffset, boolean direct) {
    if (count == 0) {
      return;
    }
    long prev = in[offset];
    out[outOffset] = prev;
    if (count == 1) {
      return;
    }
    if (direct) {
      long[] pair = new long[2];
      for (int i = 1; i < count; i++) {
        pair[0] = prev;
        pair[1] = in[offset + i];
        prev = CHAIN.hashLongs(pair);
        out[outOffset + i] = prev;
      }
    } else {
      byte[] pair = new byte[2 * Long.BYTES];
      for (int i = 1; i < count; i++) {
        LONG_LE.set(pair, 0, prev);
        LONG_LE.set(pair, Long.BYTES, in[offset + i]);
        prev = CHAIN.hashBytes(pair);
        out[outOffset + i] = prev;
      }
    }
  }

  private static void checkRange(String what, int arrayLength, int offset, int length) {
    if (offset < 0 || length < 0 || offset > arrayLength - length) {
      throw new IllegalArgumentException(
          what
              + " range [offset "
              + offset
              + ", length "
              + length
              + "] is outside an array of length "
              + arrayLength);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BlockHasher h && h.blockSize == blockSize && h.seed == seed;
  }

  @Override
  public int hashCode() {
    return 31 * blockSize + Long.hashCode(seed);
  }

  @Override
  public String toString() {
    return "BlockHasher[blockSize=" + blockSize + ", seed=" + Long.toUnsignedString(seed) + "]";
  }
}
