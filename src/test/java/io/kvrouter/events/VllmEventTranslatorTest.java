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
    apply(new BlockStored(List.of(E0), null, tokens(0, 4), BLOCK_SIZE, null, null, null, null, null));
    assertThat(overlap(tokens(0, 4))).isEqualTo(1);
    assertThat(dropped("other_medium")).isZero();
  }
}
