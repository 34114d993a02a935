package io.kvrouter.protocol.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.IntStream;
import net.openhft.hashing.LongHashFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BlockHasherTest {
  // Reference vectors: docs/interop.md §1 (the first is Dynamo's own test).
  private static final long TEST_DATA_1337 = BlockHasher.parseUnsigned("13226331709069118873");
  private static final long LOCAL_0_15 = BlockHasher.parseUnsigned("15310707395893867146");
  private static final long LOCAL_16_31 = BlockHasher.parseUnsigned("15292316782987903195");
  private static final long SEQ_1 = BlockHasher.parseUnsigned("13769157705258532664");
  private static final long LORA_ADAPTER_A_SEED = BlockHasher.parseUnsigned("8842669519798868182");
  private static final long LORA_LOCAL_0_15 = BlockHasher.parseUnsigned("17429507120064042683");

  private static int[] range(int fromInclusive, int toExclusive) {
    return IntStream.range(fromInclusive, toExclusive).toArray();
  }

  // ---- reference vectors ------------------------------------------------------------------

  @Test
  void xxh3OfTestDataWithSeed1337_matchesDynamo() {
    long h =
        LongHashFunction.xx3(BlockHasher.DEFAULT_SEED)
            .hashBytes("test data".getBytes(StandardCharsets.UTF_8));
    assertThat(h).isEqualTo(TEST_DATA_1337);
    assertThat(BlockHasher.toUnsignedString(h)).isEqualTo("13226331709069118873");
  }

  @Test
  void localHashes_ofTokens0To31_matchReference() {
    long[] local = BlockHasher.of(16).localHashes(range(0, 32));
    assertThat(local).containsExactly(LOCAL_0_15, LOCAL_16_31);
  }

  @Test
  void localHash_ofSingleBlocks_matchesReference() {
    BlockHasher h = BlockHasher.of(16);
    int[] tokens = range(0, 32);
    assertThat(h.localHash(tokens, 0)).isEqualTo(LOCAL_0_15);
    assertThat(h.localHash(tokens, 16)).isEqualTo(LOCAL_16_31);
    assertThat(h.localHash(range(16, 32), 0)).isEqualTo(LOCAL_16_31);
  }

  @Test
  void sequenceHashes_ofTokens0To31_matchReference() {
    assertThat(BlockHasher.of(16).sequenceHashes(range(0, 32))).containsExactly(LOCAL_0_15, SEQ_1);
    assertThat(BlockHasher.chain(new long[] {LOCAL_0_15, LOCAL_16_31}))
        .containsExactly(LOCAL_0_15, SEQ_1);
    assertThat(BlockHasher.nextSequenceHash(LOCAL_0_15, LOCAL_16_31)).isEqualTo(SEQ_1);
  }

  @Test
  void loraSeed_forAdapterA_matchesReference() {
    assertThat(BlockHasher.seedFor("adapter-a", null)).isEqualTo(LORA_ADAPTER_A_SEED);
    assertThat(BlockHasher.of(16, "adapter-a").seed()).isEqualTo(LORA_ADAPTER_A_SEED);
    assertThat(BlockHasher.toUnsignedString(LORA_ADAPTER_A_SEED)).isEqualTo("8842669519798868182");
  }

  @Test
  void localHash_withAdapterASeed_matchesReference() {
    assertThat(BlockHasher.of(16, "adapter-a").localHashes(range(0, 16)))
        .containsExactly(LORA_LOCAL_0_15);
    assertThat(BlockHasher.withSeed(16, LORA_ADAPTER_A_SEED).localHashes(range(0, 16)))
        .containsExactly(LORA_LOCAL_0_15);
  }

  @Test
  void lora_reachesSequenceHashesOnlyThroughLocalHashes_chainSeedStays1337() {
    long[] local = BlockHasher.of(16, "adapter-a").localHashes(range(0, 32));
    long[] seq = BlockHasher.of(16, "adapter-a").sequenceHashes(range(0, 32));
    assertThat(seq[0]).isEqualTo(local[0]);
    assertThat(seq[1]).isEqualTo(reference16ByteChain(local[0], local[1]));
  }

  // ---- seeds ------------------------------------------------------------------------------

  @Test
  void nullOrEmptyLoraAndNamespace_meanAbsent() {
    assertThat(BlockHasher.seedFor(null, null)).isEqualTo(1337L);
    assertThat(BlockHasher.seedFor("", "")).isEqualTo(1337L);
    assertThat(BlockHasher.of(16, "")).isEqualTo(BlockHasher.of(16));
    assertThat(BlockHasher.of(16, null, null).localHashes(range(0, 32)))
        .containsExactly(LOCAL_0_15, LOCAL_16_31);
  }

  @Test
  void namespaceSalt_isXxh3WithSeedOne_addedWrapping() {
    byte[] ns = "tenant-42".getBytes(StandardCharsets.UTF_8);
    byte[] lora = "adapter-a".getBytes(StandardCharsets.UTF_8);
    long nsTerm = LongHashFunction.xx3(1).hashBytes(ns);
    long loraTerm = LongHashFunction.xx3(0).hashBytes(lora);
    assertThat(BlockHasher.seedFor(null, "tenant-42")).isEqualTo(1337L + nsTerm);
    assertThat(BlockHasher.seedFor("adapter-a", "tenant-42")).isEqualTo(1337L + loraTerm + nsTerm);
    assertThat(BlockHasher.seedFor("adapter-a", "tenant-42"))
        .isEqualTo(LORA_ADAPTER_A_SEED + nsTerm);
    // same bytes as LoRA or as namespace give different seeds (inner seeds 0 vs 1)
    assertThat(BlockHasher.seedFor("x", null)).isNotEqualTo(BlockHasher.seedFor(null, "x"));
  }

  @Test
  void loraName_isHashedAsUtf8() {
    String name = "r\u00e9sum\u00e9-\u65e5\u672c";
    long expected =
        1337L + LongHashFunction.xx3(0).hashBytes(name.getBytes(StandardCharsets.UTF_8));
    assertThat(BlockHasher.seedFor(name, null)).isEqualTo(expected);
  }

  // ---- partial blocks, empty input, block sizes -------------------------------------------

  @Test
  void trailingPartialBlock_isIgnored() {
    BlockHasher h = BlockHasher.of(16);
    for (int n = 32; n < 48; n++) {
      assertThat(h.localHashes(range(0, n))).as("n=%d", n).containsExactly(LOCAL_0_15, LOCAL_16_31);
      assertThat(h.sequenceHashes(range(0, n))).as("n=%d", n).containsExactly(LOCAL_0_15, SEQ_1);
      assertThat(h.blockCount(n)).isEqualTo(2);
    }
    assertThat(h.localHashes(range(0, 15))).isEmpty();
    assertThat(h.sequenceHashes(range(0, 15))).isEmpty();
  }

  @Test
  void emptyInput_givesNoHashes() {
    BlockHasher h = BlockHasher.of(16);
    assertThat(h.localHashes(new int[0])).isEmpty();
    assertThat(h.sequenceHashes(new int[0])).isEmpty();
    assertThat(h.localHashes(range(0, 32), 32, 0)).isEmpty();
    assertThat(BlockHasher.chain(new long[0])).isEmpty();
    long[] out = {7L, 8L};
    assertThat(h.localHashes(new int[0], 0, 0, out, 2)).isZero();
    assertThat(h.sequenceHashes(new int[0], 0, 0, out, 0)).isZero();
    assertThat(out).containsExactly(7L, 8L);
    assertThat(h.blockCount(0)).isZero();
  }

  @Test
  void blockSizeOne_hashesEveryToken() {
    BlockHasher h = BlockHasher.of(1);
    int[] tokens = {5, -1, Integer.MIN_VALUE, 0};
    long[] local = h.localHashes(tokens);
    assertThat(local).hasSize(4);
    for (int i = 0; i < tokens.length; i++) {
      assertThat(local[i]).isEqualTo(referenceLocal(tokens, i, 1, 1337L));
    }
  }

  @Test
  void blockSizeEqualToLength_givesOneBlock_andLargerGivesNone() {
    assertThat(BlockHasher.of(32).localHashes(range(0, 32)))
        .containsExactly(referenceLocal(range(0, 32), 0, 32, 1337L));
    assertThat(BlockHasher.of(33).localHashes(range(0, 32))).isEmpty();
    assertThat(BlockHasher.of(BlockHasher.MAX_BLOCK_SIZE).localHashes(range(0, 32))).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1, -16, Integer.MIN_VALUE, BlockHasher.MAX_BLOCK_SIZE + 1})
  void invalidBlockSize_isRejected(int blockSize) {
    assertThatThrownBy(() -> BlockHasher.of(blockSize))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("blockSize")
        .hasMessageContaining(Integer.toString(blockSize));
    assertThatThrownBy(() -> BlockHasher.of(blockSize, "adapter-a", "ns"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> BlockHasher.withSeed(blockSize, 1L))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ---- argument validation ----------------------------------------------------------------

  @Test
  void badRanges_areRejectedWithClearMessages() {
    BlockHasher h = BlockHasher.of(4);
    int[] tokens = range(0, 10);
    assertThatThrownBy(() -> h.localHashes(tokens, -1, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tokens range")
        .hasMessageContaining("offset -1");
    assertThatThrownBy(() -> h.localHashes(tokens, 0, -4))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> h.localHashes(tokens, 8, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("array of length 10");
    assertThatThrownBy(() -> h.localHashes(tokens, Integer.MAX_VALUE, 4))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> h.localHash(tokens, 7)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> h.localHash(tokens, -1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> h.localHashes(tokens, 0, 10, new long[1], 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("out range");
    assertThatThrownBy(() -> h.sequenceHashes(tokens, 0, 10, new long[2], 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> h.localHashes(tokens, 0, 10, new long[2], -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> h.blockCount(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tokenCount");
    assertThatThrownBy(() -> BlockHasher.chain(new long[3], 1, 3, new long[3], 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("localHashes range");
    assertThatThrownBy(() -> BlockHasher.chain(new long[3], 0, 3, new long[2], 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("out range");
    long[] same = new long[4];
    assertThatThrownBy(() -> BlockHasher.chain(same, 0, 3, same, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("in-place");
  }

  @Test
  void nullArrays_areRejected() {
    BlockHasher h = BlockHasher.of(4);
    assertThatThrownBy(() -> h.localHashes(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> h.sequenceHashes(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> h.localHashes(new int[4], 0, 4, null, 0))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> BlockHasher.chain(null)).isInstanceOf(NullPointerException.class);
  }

  // ---- caller-provided arrays, offsets, in place --------------------------------------------

  @Test
  void intoCallerArray_atOffsets_matchesNewArrayForm() {
    BlockHasher h = BlockHasher.of(16);
    int[] tokens = new int[3 + 40];
    System.arraycopy(range(0, 32), 0, tokens, 3, 32);
    long[] out = new long[5];
    Arrays.fill(out, -7L);
    assertThat(h.localHashes(tokens, 3, 40, out, 2)).isEqualTo(2);
    assertThat(out).containsExactly(-7L, -7L, LOCAL_0_15, LOCAL_16_31, -7L);
    Arrays.fill(out, -7L);
    assertThat(h.sequenceHashes(tokens, 3, 40, out, 1)).isEqualTo(2);
    assertThat(out).containsExactly(-7L, LOCAL_0_15, SEQ_1, -7L, -7L);
    assertThat(h.localHashes(tokens, 3, 40)).containsExactly(LOCAL_0_15, LOCAL_16_31);
  }

  @Test
  void chain_inPlaceAndShiftedLeft_matchesFreshArray() {
    long[] local = BlockHasher.of(8).localHashes(randomTokens(new Random(7), 80, false));
    long[] expected = BlockHasher.chain(local);

    long[] inPlace = local.clone();
    BlockHasher.chain(inPlace, 0, inPlace.length, inPlace, 0);
    assertThat(inPlace).containsExactly(expected);

    long[] shifted = new long[local.length + 3];
    System.arraycopy(local, 0, shifted, 3, local.length);
    BlockHasher.chain(shifted, 3, local.length, shifted, 1);
    assertThat(Arrays.copyOfRange(shifted, 1, 1 + local.length)).containsExactly(expected);
  }

  // ---- chain properties -------------------------------------------------------------------

  @Test
  void sequenceHashesOfPrefix_areAPrefixOfSequenceHashesOfWhole() {
    Random rnd = new Random(42);
    BlockHasher h = BlockHasher.of(16);
    int[] whole = randomTokens(rnd, 16 * 40 + 9, true);
    long[] wholeSeq = h.sequenceHashes(whole);
    long[] wholeLocal = h.localHashes(whole);
    assertThat(wholeSeq).hasSize(40);
    for (int n = 0; n <= whole.length; n += 5) {
      long[] seq = h.sequenceHashes(Arrays.copyOf(whole, n));
      assertThat(seq).containsExactly(Arrays.copyOf(wholeSeq, n / 16));
      assertThat(h.localHashes(whole, 0, n)).containsExactly(Arrays.copyOf(wholeLocal, n / 16));
    }
  }

  @Test
  void sequenceHashes_equalChainOfLocalHashes_andStepwiseChain() {
    Random rnd = new Random(1);
    BlockHasher h = BlockHasher.of(32, "adapter-a");
    int[] tokens = randomTokens(rnd, 32 * 25, true);
    long[] local = h.localHashes(tokens);
    long[] seq = h.sequenceHashes(tokens);
    assertThat(seq).containsExactly(BlockHasher.chain(local));
    long prev = local[0];
    assertThat(seq[0]).isEqualTo(prev);
    for (int i = 1; i < local.length; i++) {
      prev = BlockHasher.nextSequenceHash(prev, local[i]);
      assertThat(seq[i]).isEqualTo(prev);
    }
  }

  @Test
  void sameBlockAfterDifferentPrefix_hasSameLocalButDifferentSequenceHash() {
    BlockHasher h = BlockHasher.of(4);
    int[] a = {1, 2, 3, 4, 9, 9, 9, 9};
    int[] b = {5, 6, 7, 8, 9, 9, 9, 9};
    assertThat(h.localHashes(a)[1]).isEqualTo(h.localHashes(b)[1]);
    assertThat(h.sequenceHashes(a)[1]).isNotEqualTo(h.sequenceHashes(b)[1]);
  }

  // ---- golden cross-check against an independent computation ------------------------------

  @Test
  void fastPath_matchesExplicitLittleEndianBytes_onRandomInputs() {
    Random rnd = new Random(0x5EEDL);
    for (int iter = 0; iter < 400; iter++) {
      int bs = 1 + (iter % 4 == 0 ? rnd.nextInt(700) : rnd.nextInt(80));
      int n = rnd.nextInt(bs * 12 + 3);
      long seed = iter % 3 == 0 ? rnd.nextLong() : 1337L;
      int[] tokens = randomTokens(rnd, n, iter % 2 == 0);
      int off = n == 0 ? 0 : rnd.nextInt(Math.min(n, bs * 2) + 1);
      int len = n - off;

      long[] expectedLocal = new long[len / bs];
      for (int b = 0; b < expectedLocal.length; b++) {
        expectedLocal[b] = referenceLocal(tokens, off + b * bs, bs, seed);
      }
      long[] expectedSeq = referenceChain(expectedLocal);

      BlockHasher fast = BlockHasher.withSeed(bs, seed);
      BlockHasher portable = BlockHasher.portable(bs, seed);
      String ctx = "iter=" + iter + " bs=" + bs + " n=" + n + " off=" + off;
      assertThat(fast.localHashes(tokens, off, len)).as(ctx).containsExactly(expectedLocal);
      assertThat(portable.localHashes(tokens, off, len)).as(ctx).containsExactly(expectedLocal);
      long[] out = new long[expectedLocal.length + 1];
      fast.sequenceHashes(tokens, off, len, out, 1);
      assertThat(Arrays.copyOfRange(out, 1, out.length)).as(ctx).containsExactly(expectedSeq);
      portable.sequenceHashes(tokens, off, len, out, 1);
      assertThat(Arrays.copyOfRange(out, 1, out.length)).as(ctx).containsExactly(expectedSeq);
      assertThat(BlockHasher.chain(expectedLocal, false)).as(ctx).containsExactly(expectedSeq);
      if (expectedLocal.length > 0) {
        assertThat(fast.localHash(tokens, off)).as(ctx).isEqualTo(expectedLocal[0]);
        assertThat(portable.localHash(tokens, off)).as(ctx).isEqualTo(expectedLocal[0]);
      }
      if (off == 0) {
        assertThat(fast.sequenceHashes(tokens)).as(ctx).containsExactly(expectedSeq);
      }
    }
  }

  @Test
  void nextSequenceHash_onBothPaths_matchesExplicitBytes() {
    Random rnd = new Random(99);
    for (int i = 0; i < 200; i++) {
      long parent = rnd.nextLong();
      long local = rnd.nextLong();
      long expected = reference16ByteChain(parent, local);
      assertThat(BlockHasher.nextSequenceHash(parent, local)).isEqualTo(expected);
      assertThat(BlockHasher.nextSequenceHash(parent, local, true)).isEqualTo(expected);
      assertThat(BlockHasher.nextSequenceHash(parent, local, false)).isEqualTo(expected);
    }
  }

  // ---- small API bits ---------------------------------------------------------------------

  @Test
  void unsignedHelpers_roundTripHighBitValues() {
    assertThat(BlockHasher.toUnsignedString(-1L)).isEqualTo("18446744073709551615");
    assertThat(BlockHasher.parseUnsigned("18446744073709551615")).isEqualTo(-1L);
    assertThat(BlockHasher.parseUnsigned(BlockHasher.toUnsignedString(LOCAL_0_15)))
        .isEqualTo(LOCAL_0_15);
    assertThatThrownBy(() -> BlockHasher.parseUnsigned("18446744073709551616"))
        .isInstanceOf(NumberFormatException.class);
    assertThatThrownBy(() -> BlockHasher.parseUnsigned("-1"))
        .isInstanceOf(NumberFormatException.class);
  }

  @Test
  void accessorsEqualityAndToString() {
    BlockHasher h = BlockHasher.of(64);
    assertThat(h.blockSize()).isEqualTo(64);
    assertThat(h.seed()).isEqualTo(BlockHasher.DEFAULT_SEED);
    assertThat(h).isEqualTo(BlockHasher.withSeed(64, 1337L)).hasSameHashCodeAs(BlockHasher.of(64));
    assertThat(h).isNotEqualTo(BlockHasher.of(16)).isNotEqualTo(BlockHasher.of(64, "adapter-a"));
    assertThat(BlockHasher.of(16, "adapter-a").toString())
        .isEqualTo("BlockHasher[blockSize=16, seed=8842669519798868182]");
    assertThat(h.blockCount(127)).isEqualTo(1);
    assertThat(h.blockCount(128)).isEqualTo(2);
  }

  // ---- independent reference computation --------------------------------------------------

  /** XXH3 over explicitly built little-endian u32 bytes of tokens[off, off + bs). */
  static long referenceLocal(int[] tokens, int off, int bs, long seed) {
    ByteBuffer buf = ByteBuffer.allocate(bs * 4).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < bs; i++) {
      buf.putInt(tokens[off + i]);
    }
    return LongHashFunction.xx3(seed).hashBytes(buf.array());
  }

  /** XXH3(LE_u64(parent) ‖ LE_u64(local), 1337) over explicitly built bytes. */
  static long reference16ByteChain(long parent, long local) {
    byte[] bytes =
        ByteBuffer.allocate(16)
            .order(ByteOrder.LITTLE_ENDIAN)
            .putLong(parent)
            .putLong(local)
            .array();
    return LongHashFunction.xx3(1337L).hashBytes(bytes);
  }

  static long[] referenceChain(long[] local) {
    long[] seq = new long[local.length];
    for (int i = 0; i < local.length; i++) {
      seq[i] = i == 0 ? local[0] : reference16ByteChain(seq[i - 1], local[i]);
    }
    return seq;
  }

  /** Random token ids: full u32 range (negative ints included) or a 152k-token vocabulary. */
  static int[] randomTokens(Random rnd, int n, boolean fullU32) {
    int[] t = new int[n];
    for (int i = 0; i < n; i++) {
      t[i] = fullU32 ? rnd.nextInt() : rnd.nextInt(152_000);
    }
    return t;
  }
}
