package io.kvrouter.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.protocol.vllm.VllmEvent;
import io.kvrouter.protocol.vllm.VllmEvent.AllBlocksCleared;
import io.kvrouter.protocol.vllm.VllmEvent.BlockRemoved;
import io.kvrouter.protocol.vllm.VllmEvent.BlockStored;
import io.kvrouter.protocol.vllm.VllmEventBatch;
import io.kvrouter.routing.index.KvIndexer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** vLLM events through the translator into a real index, matched by the router's own hashes. */
class VllmEventTranslatorTest {
  private static final int BLOCK_SIZE = 4;
  private static final WorkerRank RANK = new WorkerRank("w1", 1);

  /** Engine hashes are opaque; values above 2^63 arrive as negative longs. */
  private static final long E0 = 0xDA5F_0000_0000_0001L;

  private static final long E1 = 0x1234_5678_9ABC_DEF0L;
  private static final long E2 = -7L;

  private final KvIndexer index = KvIndexer.create();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final VllmEventTranslator translator = new VllmEventTranslator(index, BLOCK_SIZE, meters);
  private final BlockHasher hasher = BlockHasher.of(BLOCK_SIZE);

  @AfterEach
  void close() {
    index.close();
  }

  private static int[] tokens(int from, int count) {
    return IntStream.range(from, from + count).toArray();
  }

  private void apply(VllmEvent... events) throws Exception {
    translator.apply(RANK, new VllmEventBatch(1.0, List.of(events), 1));
    index.flush().toCompletableFuture().get();
  }

  private int overlap(int[] prompt) {
    return index.findMatches(hasher.localHashes(prompt)).overlap(RANK);
  }

  private double dropped(String reason) {
    return meters.get(MetricNames.EVENTS_DROPPED).tag("reason", reason).counter().count();
  }

  @Test
  void storedBlocks_matchByTheRoutersHashOfTheirTokens() throws Exception {
    apply(BlockStored.of(List.of(E0, E1), null, tokens(0, 8), BLOCK_SIZE));

    assertThat(overlap(tokens(0, 12))).isEqualTo(2);
    assertThat(overlap(tokens(0, 5))).isEqualTo(1);
    assertThat(overlap(tokens(1, 8))).isZero();
  }

  @Test
  void aStoreUnderAParent_extendsThatChain_andRemovalsUseEngineHashes() throws Exception {
    apply(BlockStored.of(List.of(E0), null, tokens(0, 4), BLOCK_SIZE));
    apply(BlockStored.of(List.of(E1, E2), E0, tokens(4, 8), BLOCK_SIZE));
    assertThat(overlap(tokens(0, 12))).isEqualTo(3);

    apply(BlockRemoved.of(List.of(E2)));
    assertThat(overlap(tokens(0, 12))).isEqualTo(2);

    apply(new AllBlocksCleared());
    assertThat(overlap(tokens(0, 12))).isZero();
    assertThat(index.stats().rejected()).isZero();
  }

  @Test
  void aStoreWhoseParentIsUnknown_isRejectedNotReRooted() throws Exception {
    apply(BlockStored.of(List.of(E1), E0, tokens(4, 4), BLOCK_SIZE));

    assertThat(index.stats().parentBlockNotFound()).isEqualTo(1);
    assertThat(overlap(tokens(4, 4))).as("not stored at the sequence start").isZero();
  }

  @Test
  void unusableEvents_areDroppedAndCountedByReason() throws Exception {
    apply(
        new BlockStored(List.of(E0), null, tokens(0, 4), BLOCK_SIZE, null, "CPU", null, null, null),
        new BlockRemoved(List.of(E0), "CPU", null),
        BlockStored.of(List.of(E0), null, tokens(0, 16), 16),
        BlockStored.of(List.of(E0, E1), null, tokens(0, 7), BLOCK_SIZE));

    assertThat(dropped("other_medium")).isEqualTo(2);
    assertThat(dropped("block_size_mismatch")).isEqualTo(1);
    assertThat(dropped("token_count_mismatch")).isEqualTo(1);
    assertThat(index.stats().applied()).isZero();
    assertThat(index.cachedBlocks()).doesNotContainKey(RANK);
  }

  @Test
  void publishersWithoutAMedium_areTakenAsGpu() throws Exception {
    apply(
        new BlockStored(List.of(E0), null, tokens(0, 4), BLOCK_SIZE, null, null, null, null, null));
    assertThat(overlap(tokens(0, 4))).isEqualTo(1);
    assertThat(dropped("other_medium")).isZero();
  }

  // ---------------------------------------------------------------- KV cache groups

  /** A GPU store of {@code tokens} in KV cache group {@code group} of kind {@code kind}. */
  private static BlockStored inGroup(
      List<Long> hashes, int[] tokens, int blockSize, Integer group, String kind) {
    return new BlockStored(hashes, null, tokens, blockSize, null, "GPU", null, group, kind);
  }

  @Test
  void hybridModels_onlyFullAttentionGroupsAreIndexed_whateverTheirNumber() throws Exception {
    // vLLM numbers groups in layer order: here sliding window is group 0, full attention group 1
    apply(
        inGroup(List.of(E0), tokens(0, 4), BLOCK_SIZE, 0, "sliding_window"),
        inGroup(List.of(E0), tokens(0, 4), BLOCK_SIZE, 1, "full_attention"),
        inGroup(List.of(E1), tokens(100, 4), BLOCK_SIZE, 2, "mamba"),
        inGroup(List.of(E1), tokens(100, 4), 64, 3, "mamba"), // another block size: still a group
        inGroup(List.of(E2), tokens(200, 4), BLOCK_SIZE, 4, "some_future_kind"));

    assertThat(overlap(tokens(0, 4))).isEqualTo(1);
    assertThat(overlap(tokens(100, 4))).isZero();
    assertThat(overlap(tokens(200, 4))).isZero();
    assertThat(dropped("other_kv_group")).isEqualTo(4);
    assertThat(dropped("block_size_mismatch")).isZero();
  }

  @Test
  void mlaAndSinkFullAttention_areFullAttention() throws Exception {
    apply(
        inGroup(List.of(E0), tokens(0, 4), BLOCK_SIZE, 0, "mla_attention"),
        inGroup(List.of(E1), tokens(100, 4), BLOCK_SIZE, 1, "sink_full_attention"));

    assertThat(overlap(tokens(0, 4))).isEqualTo(1);
    assertThat(overlap(tokens(100, 4))).isEqualTo(1);
    assertThat(dropped("other_kv_group")).isZero();
  }

  @Test
  void storesWithoutAKind_areKeptForGroupZeroOnly() throws Exception {
    apply(
        inGroup(List.of(E0), tokens(0, 4), BLOCK_SIZE, 0, null),
        inGroup(List.of(E1), tokens(100, 4), BLOCK_SIZE, 1, null));

    assertThat(overlap(tokens(0, 4))).isEqualTo(1);
    assertThat(overlap(tokens(100, 4))).isZero();
    assertThat(dropped("other_kv_group")).isEqualTo(1);
  }

  @Test
  void removals_followTheGroupsTheStoresSaidAreFullAttention() throws Exception {
    apply(
        inGroup(List.of(E0, E1), tokens(0, 8), BLOCK_SIZE, 0, "sliding_window"),
        inGroup(List.of(E0, E1), tokens(0, 8), BLOCK_SIZE, 1, "full_attention"));

    // the sliding window evicts early; that says nothing about the full-attention prefix
    apply(new BlockRemoved(List.of(E1), "GPU", 0));
    assertThat(overlap(tokens(0, 8))).isEqualTo(2);
    assertThat(dropped("other_kv_group")).isEqualTo(2);

    apply(new BlockRemoved(List.of(E1), "GPU", 1));
    assertThat(overlap(tokens(0, 8))).isEqualTo(1);
  }

  @Test
  void removals_beforeAnyStoreNamedItsGroup_keepGroupZeroOnly_perRank() throws Exception {
    WorkerRank other = new WorkerRank("w2", 0);
    translator.apply(
        other,
        new VllmEventBatch(
            1.0, List.of(inGroup(List.of(E0), tokens(0, 4), BLOCK_SIZE, 1, "full_attention")), 0));
    // RANK's publisher never said which group is full attention: group 0 is assumed, as in Dynamo
    apply(
        inGroup(List.of(E0, E1), tokens(0, 8), BLOCK_SIZE, 0, null),
        new BlockRemoved(List.of(E1), "GPU", 1));
    assertThat(overlap(tokens(0, 8))).isEqualTo(2);
    assertThat(dropped("other_kv_group")).isEqualTo(1);

    apply(new BlockRemoved(List.of(E1), "GPU", 0));
    assertThat(overlap(tokens(0, 8))).isEqualTo(1);
  }

  @Test
  void aForgottenWorker_startsOverWithGroupZero() throws Exception {
    apply(inGroup(List.of(E0), tokens(0, 4), BLOCK_SIZE, 1, "full_attention"));

    translator.forget("w1"); // it left; it comes back running a model whose group 0 is full
    index.removeWorker("w1");
    apply(
        inGroup(List.of(E0, E1), tokens(0, 8), BLOCK_SIZE, 0, null),
        new BlockRemoved(List.of(E1), "GPU", 0));

    assertThat(overlap(tokens(0, 8))).isEqualTo(1);
    assertThat(dropped("other_kv_group")).isZero();
  }

  @Test
  void removalsWithoutAGroup_areKept() throws Exception {
    apply(inGroup(List.of(E0), tokens(0, 4), BLOCK_SIZE, 1, "full_attention"));
    apply(new BlockRemoved(List.of(E0), "GPU", null));

    assertThat(overlap(tokens(0, 4))).isZero();
    assertThat(dropped("other_kv_group")).isZero();
  }

  // ---------------------------------------------------------------- LoRA

  /** A GPU store computed with LoRA adapter {@code name}, vLLM's extra keys naming it per block. */
  private static BlockStored withLora(List<Long> hashes, int[] tokens, Integer id, String name) {
    List<List<Object>> extraKeys =
        name == null ? null : Collections.nCopies(hashes.size(), List.of(name));
    return new BlockStored(
        hashes, null, tokens, BLOCK_SIZE, id, "GPU", name, null, null, extraKeys);
  }

  @Test
  void loraBlocks_matchPromptsHashedForThatAdapter_only() throws Exception {
    apply(withLora(List.of(E0, E1), tokens(0, 8), 1, "adapter-a"));

    long[] forAdapter = BlockHasher.of(BLOCK_SIZE, "adapter-a").localHashes(tokens(0, 8));
    long[] forOther = BlockHasher.of(BLOCK_SIZE, "adapter-b").localHashes(tokens(0, 8));
    assertThat(index.findMatches(forAdapter).overlap(RANK)).isEqualTo(2);
    assertThat(index.findMatches(forOther).overlap(RANK)).isZero();
    assertThat(overlap(tokens(0, 8))).as("the base model's hashes").isZero();
    assertThat(dropped("extra_keys")).as("the LoRA name is no foreign extra key").isZero();
  }

  @Test
  void loraBlocks_hashAsDynamoDoes_referenceVector() throws Exception {
    VllmEventTranslator bs16 = new VllmEventTranslator(index, 16, meters);
    bs16.apply(
        RANK,
        new VllmEventBatch(
            1.0,
            List.of(
                new BlockStored(
                    List.of(E0), null, tokens(0, 16), 16, 1, "GPU", "adapter-a", null, null)),
            1));
    index.flush().toCompletableFuture().get();

    // docs/interop.md §1: LoRA "adapter-a", tokens 0..15, bs 16
    long expected = BlockHasher.parseUnsigned("17429507120064042683");
    assertThat(index.findMatches(new long[] {expected}).overlap(RANK)).isEqualTo(1);
  }

  @Test
  void aLoraIdWithoutAName_isDropped_andIdZeroMeansNone() throws Exception {
    apply(
        withLora(List.of(E0), tokens(0, 4), 3, null),
        withLora(List.of(E1), tokens(100, 4), 0, null),
        withLora(List.of(E2), tokens(200, 4), 4, ""));

    assertThat(overlap(tokens(0, 4))).isZero();
    assertThat(overlap(tokens(100, 4))).isEqualTo(1);
    assertThat(overlap(tokens(200, 4))).isZero();
    assertThat(dropped("unnamed_lora")).isEqualTo(2);
  }

  // ---------------------------------------------------------------- extra keys

  private static BlockStored withExtraKeys(
      List<Long> hashes, Long parent, int[] tokens, List<List<Object>> extraKeys) {
    return new BlockStored(
        hashes, parent, tokens, BLOCK_SIZE, null, "GPU", null, null, null, extraKeys);
  }

  @Test
  void aStoreIsCutBeforeItsFirstBlockWithForeignExtraKeys() throws Exception {
    String image = "0123456789abcdef".repeat(4); // vLLM's multimodal identifier: 64 hex chars
    apply(
        withExtraKeys(
            List.of(E0, E1, E2),
            null,
            tokens(0, 12),
            Arrays.asList(null, List.of(List.of(image, 2L)), null)));

    assertThat(overlap(tokens(0, 12))).as("the text before the image").isEqualTo(1);
    assertThat(dropped("extra_keys")).isEqualTo(1);

    // what the engine stores under the cut block cannot be placed: the index rejects it
    apply(BlockStored.of(List.of(-99L), E2, tokens(12, 4), BLOCK_SIZE));
    assertThat(index.stats().parentBlockNotFound()).isEqualTo(1);
  }

  @Test
  void anUntaggedCacheSaltOrPromptEmbeddings_dropTheWholeStore() throws Exception {
    ByteBuffer embeds = ByteBuffer.wrap(new byte[] {1, 2, 3});
    apply(
        withExtraKeys(List.of(E0, E1), null, tokens(0, 8), Arrays.asList(List.of("salt"), null)),
        withExtraKeys(List.of(E2), null, tokens(100, 4), List.of(List.of(embeds))),
        // a salt equal to the LoRA name is still a second key
        new BlockStored(
            List.of(E0),
            null,
            tokens(200, 4),
            BLOCK_SIZE,
            1,
            "GPU",
            "a",
            null,
            null,
            List.of(List.of("a", "a"))));

    assertThat(overlap(tokens(0, 8))).isZero();
    assertThat(overlap(tokens(100, 4))).isZero();
    assertThat(
            index
                .findMatches(BlockHasher.of(BLOCK_SIZE, "a").localHashes(tokens(200, 4)))
                .overlap(RANK))
        .isZero();
    assertThat(dropped("extra_keys")).isEqualTo(3);
    assertThat(index.stats().applied()).isZero();
  }

  @Test
  void extraKeysThatAreAllNone_orShorterThanTheBlocks_changeNothing() throws Exception {
    apply(
        withExtraKeys(List.of(E0, E1), null, tokens(0, 8), Arrays.asList(null, null)),
        withExtraKeys(List.of(E2), E1, tokens(8, 4), List.of()));

    assertThat(overlap(tokens(0, 12))).isEqualTo(3);
    assertThat(dropped("extra_keys")).isZero();
  }

  // ---------------------------------------------------------------- cache salts

  private static final String TAGGED_A = "dynamo-cache-salt:tenant-a";

  private int overlapIn(String namespace, int[] prompt) {
    return index
        .findMatches(BlockHasher.of(BLOCK_SIZE, null, namespace).localHashes(prompt))
        .overlap(RANK);
  }

  @Test
  void aTaggedSaltInTheFirstBlocksExtraKeys_hashesTheStoreUnderItsNamespace() throws Exception {
    apply(
        withExtraKeys(List.of(E0, E1), null, tokens(0, 8), Arrays.asList(List.of(TAGGED_A), null)));

    assertThat(overlapIn("tenant-a", tokens(0, 12))).isEqualTo(2);
    assertThat(overlap(tokens(0, 12))).as("an unsalted prompt").isZero();
    assertThat(overlapIn("tenant-b", tokens(0, 12))).as("another tenant").isZero();
    assertThat(dropped("extra_keys")).isZero();
  }

  @Test
  void aStoreContinuingASaltedSequence_isHashedUnderItsParentsNamespace() throws Exception {
    apply(withExtraKeys(List.of(E0), null, tokens(0, 4), List.of(List.of(TAGGED_A))));
    // vLLM names the salt in block 0 only: the next stores carry a parent and no extra keys
    apply(BlockStored.of(List.of(E1), E0, tokens(4, 4), BLOCK_SIZE));
    apply(BlockStored.of(List.of(E2), E1, tokens(8, 4), BLOCK_SIZE));

    assertThat(overlapIn("tenant-a", tokens(0, 12))).isEqualTo(3);
    assertThat(overlap(tokens(0, 12))).isZero();
  }

  @Test
  void removedOrClearedSaltedBlocks_areForgotten() throws Exception {
    apply(withExtraKeys(List.of(E0), null, tokens(0, 4), List.of(List.of(TAGGED_A))));
    apply(new BlockRemoved(List.of(E0), "GPU", null));
    // the same engine hash stored again without a salt is an unsalted block now
    apply(BlockStored.of(List.of(E0), null, tokens(0, 4), BLOCK_SIZE));
    apply(BlockStored.of(List.of(E1), E0, tokens(4, 4), BLOCK_SIZE));
    assertThat(overlap(tokens(0, 8))).isEqualTo(2);

    apply(withExtraKeys(List.of(E2), null, tokens(50, 4), List.of(List.of(TAGGED_A))));
    assertThat(overlapIn("tenant-a", tokens(50, 4))).isEqualTo(1);
    apply(new AllBlocksCleared());
    apply(BlockStored.of(List.of(E2), null, tokens(50, 4), BLOCK_SIZE));
    assertThat(overlap(tokens(50, 4))).isEqualTo(1);
  }

  @Test
  void aSaltBesideALoraName_seedsWithBoth_evenWhenSpelledLikeTheAdapter() throws Exception {
    apply(
        new BlockStored(
            List.of(E0),
            null,
            tokens(0, 4),
            BLOCK_SIZE,
            1,
            "GPU",
            "adapter-a",
            null,
            null,
            List.of(List.of("adapter-a", "dynamo-cache-salt:adapter-a"))));

    long[] both = BlockHasher.of(BLOCK_SIZE, "adapter-a", "adapter-a").localHashes(tokens(0, 4));
    assertThat(index.findMatches(both).overlap(RANK)).isEqualTo(1);
    long[] loraOnly = BlockHasher.of(BLOCK_SIZE, "adapter-a").localHashes(tokens(0, 4));
    assertThat(index.findMatches(loraOnly).overlap(RANK)).isZero();
  }

  @Test
  void aSaltedBlockWithAnotherForeignKey_isStillCut() throws Exception {
    apply(withExtraKeys(List.of(E0), null, tokens(0, 4), List.of(List.of("untagged", TAGGED_A))));

    assertThat(overlapIn("tenant-a", tokens(0, 4))).isZero();
    assertThat(dropped("extra_keys")).isEqualTo(1);
  }

  @Test
  void goldenSaltedEvents_fromTheWire_matchOnlyTheirTenantsPrompts() throws Exception {
    byte[] payload;
    try (var in = getClass().getResourceAsStream("/golden/vllm/map_cache_salt.msgpack")) {
      payload = in.readAllBytes();
    }
    VllmEventTranslator bs16 = new VllmEventTranslator(index, 16, meters);
    bs16.apply(RANK, io.kvrouter.protocol.vllm.VllmEventCodec.decode(payload));
    index.flush().toCompletableFuture().get();

    int[] prompt = tokens(0, 48);
    assertThat(
            index
                .findMatches(BlockHasher.of(16, null, "tenant-a").localHashes(prompt))
                .overlap(RANK))
        .isEqualTo(3);
    assertThat(index.findMatches(BlockHasher.of(16).localHashes(prompt)).overlap(RANK)).isZero();
    assertThat(
            index
                .findMatches(BlockHasher.of(16, null, "tenant-b").localHashes(prompt))
                .overlap(RANK))
        .isZero();
  }

  @Test
  void aTopLevelCacheSalt_namesTheNamespace_andItsRawCopyInExtraKeysIsNoForeignKey()
      throws Exception {
    apply(
        new BlockStored(
            List.of(E0, E1),
            null,
            tokens(0, 8),
            BLOCK_SIZE,
            null,
            "GPU",
            null,
            null,
            null,
            Arrays.asList(List.of("tenant-a"), null),
            "tenant-a"),
        new BlockStored(
            List.of(E2),
            null,
            tokens(50, 4),
            BLOCK_SIZE,
            null,
            "GPU",
            null,
            null,
            null,
            null,
            "tenant-b"));
    apply(BlockStored.of(List.of(-5L), E1, tokens(8, 4), BLOCK_SIZE));

    assertThat(overlapIn("tenant-a", tokens(0, 12))).isEqualTo(3);
    assertThat(overlapIn("tenant-b", tokens(50, 4))).isEqualTo(1);
    assertThat(overlap(tokens(0, 12))).isZero();
    assertThat(overlap(tokens(50, 4))).isZero();
    assertThat(dropped("extra_keys")).isZero();
  }
}
