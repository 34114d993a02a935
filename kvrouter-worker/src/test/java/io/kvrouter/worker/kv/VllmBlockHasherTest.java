package io.kvrouter.worker.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Golden values from {@code python3 scripts/golden/vllm_block_hashes.py} (stdlib only: hashlib and
 * a hand-written canonical CBOR encoder), which reproduces vLLM's sha256_cbor block hash with
 * PYTHONHASHSEED=0. Its "1..8, block 4" case also matches the vLLM/cbor2-made fixture Mooncake
 * Conductor publishes, which checks the script's encoder against the real one.
 */
class VllmBlockHasherTest {

  @Test
  void root_isSha256OfTheCborSeedText() {
    assertThat(VllmBlockHasher.noneHashHex())
        .isEqualTo("4e1195df020de59e0d65a33a4279f1183e7ae4e5d980e309f8b55adff2e61c3e");
    assertThat(CanonicalCbor.text("0")).containsExactly(0x61, 0x30);
  }

  @Test
  void golden_oneToEight_blockSize4() {
    assertHashes(
        IntStream.rangeClosed(1, 8).toArray(),
        4,
        "c9d58ba695280d69b243e1e0df813136ca9196b286fb1a021e0b2e028ef071cb",
        2164874634404590027L,
        "24125b23e68883b5c2141db2959d48433fe6bde2f26bd914efad121d154ab2d6",
        -1176264011553262890L);
  }

  @Test
  void golden_zeroTo31_blockSize16() {
    assertHashes(
        IntStream.range(0, 32).toArray(),
        16,
        "d830de3d42c00f25a2949b5d12d98642664a44872c1614c5b0147556276afc9c",
        -5758849010611061604L,
        "fedd9e4abebebbe6f6cf96b682f08d316063fe2f22a5c552192dd62904fcccac",
        1814341696565857452L);
  }

  @Test
  void golden_partialLastBlock_isNotHashed() {
    assertHashes(
        IntStream.range(0, 33).toArray(),
        16,
        "d830de3d42c00f25a2949b5d12d98642664a44872c1614c5b0147556276afc9c",
        -5758849010611061604L,
        "fedd9e4abebebbe6f6cf96b682f08d316063fe2f22a5c552192dd62904fcccac",
        1814341696565857452L);
    assertThat(new VllmBlockHasher(16).hashBlocks(new int[15])).isEmpty();
  }

  @Test
  void golden_everyCborIntegerWidth() {
    assertHashes(
        new int[] {23, 24, 255, 256, 65535, 65536, Integer.MAX_VALUE, 0},
        4,
        "dd764a125ed01b5d54916c6217e6b5b0b35541004e9cd2aa0f05587f85a26ed5",
        1082368590178578133L,
        "b4ee32d1d1612b5d2cc416ccce88509c82c9ca414d675fd64d1d93aa45a09bd2",
        5556759874766937042L);
  }

  @Test
  void golden_vocabularySizedIds_blockSize3() {
    assertHashes(
        new int[] {151643, 151644, 872, 198, 9707, 11, 1879},
        3,
        "c3ddd77a1b9fd82d82c1165b111512fcc050f6b9dd4976579f84124cdf559338",
        -6952411803379461320L,
        "f3cb9e5bc5ad552963e030ac49039d4a04529aba385a2bf5747ca5040add2dc0",
        8393765242292481472L);
  }

  @Test
  void eventValue_isTheLastEightBytesBigEndian_unsigned() {
    VllmBlockHash first =
        new VllmBlockHasher(4).hashBlocks(IntStream.rangeClosed(1, 8).toArray()).get(1);
    assertThat(Long.toUnsignedString(first.value())).isEqualTo("17270480062156288726");
    assertThat(Long.toHexString(first.value())).isEqualTo("efad121d154ab2d6");
  }

  @Test
  void continuingAChain_givesTheSameHashesAsHashingAtOnce() {
    SplittableRandom random = new SplittableRandom(7);
    for (int round = 0; round < 200; round++) {
      int blockSize = random.nextInt(1, 9);
      int[] tokens = random.ints(random.nextInt(0, 80), 0, 200_000).toArray();
      VllmBlockHasher hasher = new VllmBlockHasher(blockSize);
      List<VllmBlockHash> whole = hasher.hashBlocks(tokens);
      int split = random.nextInt(0, whole.size() + 1);
      List<VllmBlockHash> head = hasher.hashBlocks(null, tokens, 0, split);
      List<VllmBlockHash> tail =
          hasher.hashBlocks(
              split == 0 ? null : head.get(split - 1), tokens, split, whole.size() - split);
      assertThat(head).isEqualTo(whole.subList(0, split));
      assertThat(tail).isEqualTo(whole.subList(split, whole.size()));
    }
  }

  @Test
  void hashesDependOnTheWholePrefix() {
    VllmBlockHasher hasher = new VllmBlockHasher(2);
    List<VllmBlockHash> a = hasher.hashBlocks(new int[] {1, 2, 3, 4});
    List<VllmBlockHash> b = hasher.hashBlocks(new int[] {9, 2, 3, 4});
    assertThat(a.get(1)).isNotEqualTo(b.get(1));
  }

  @Test
  void rejectsNegativeTokensAndBadRanges() {
    VllmBlockHasher hasher = new VllmBlockHasher(2);
    assertThatThrownBy(() -> hasher.hashBlocks(new int[] {1, -1}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("negative token id");
    assertThatThrownBy(() -> hasher.hashBlocks(null, new int[4], 1, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> hasher.hashBlocks(null, new int[4], 0, 3))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new VllmBlockHasher(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void golden_salted_zeroTo31_blockSize16_onlyTheFirstBlockCarriesTheSalt() {
    assertSaltedHashes(
        IntStream.range(0, 32).toArray(),
        16,
        "dynamo-cache-salt:tenant-a",
        "b66eeb6f28b404a8c96ee6f04e6ac0e3076fd831d74848f69713970b40e66834",
        -7560533274835654604L,
        "782c4f43d4c090922d077b98f808e5777ebe14fab183d481a9c81a112ffb7d95",
        -6212687024835822187L);
  }

  @Test
  void aSaltedSequence_growsTheSameChainAsItsPromptWould() {
    int[] tokens = IntStream.range(0, 48).toArray();
    VllmSequence grown =
        new VllmSequence(16, java.util.Arrays.copyOf(tokens, 8), "dynamo-cache-salt:t");
    for (int i = 8; i < 48; i++) {
      grown.append(tokens[i]);
    }
    List<VllmBlockHash> whole = new VllmBlockHasher(16).hashBlocks(tokens, "dynamo-cache-salt:t");
    assertThat(grown.fullBlocks()).isEqualTo(3);
    for (int i = 0; i < 3; i++) {
      assertThat(grown.hash(i)).isEqualTo(whole.get(i).value());
    }
    assertThat(((KvBlock.Vllm) grown.block(0)).cacheSalt()).isEqualTo("dynamo-cache-salt:t");
    assertThat(((KvBlock.Vllm) grown.block(1)).cacheSalt()).isNull();
    assertThat(grown.hash(0))
        .isNotEqualTo(new VllmBlockHasher(16).hashBlocks(tokens).get(0).value());
  }

  private static void assertSaltedHashes(
      int[] tokens, int blockSize, String salt, Object... expected) {
    check(new VllmBlockHasher(blockSize).hashBlocks(tokens, salt), expected);
  }

  private static void assertHashes(int[] tokens, int blockSize, Object... expected) {
    check(new VllmBlockHasher(blockSize).hashBlocks(tokens), expected);
  }

  private static void check(List<VllmBlockHash> hashes, Object... expected) {
    assertThat(hashes).hasSize(expected.length / 2);
    for (int i = 0; i < hashes.size(); i++) {
      assertThat(hashes.get(i).hex()).as("block %d digest", i).isEqualTo(expected[2 * i]);
      assertThat(hashes.get(i).value())
          .as("block %d event value", i)
          .isEqualTo(expected[2 * i + 1]);
      assertThat(hashes.get(i).digest())
          .isEqualTo(HexFormat.of().parseHex((String) expected[2 * i]));
    }
  }
}
