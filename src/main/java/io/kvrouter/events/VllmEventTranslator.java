package io.kvrouter.events;

import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.protocol.vllm.VllmEvent;
import io.kvrouter.protocol.vllm.VllmEventBatch;
import io.kvrouter.routing.index.KvEventSink;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Turns vLLM's KV cache events into the index's events, as Dynamo's router does: the engine's
 * block hashes stay the blocks' addresses (the index keeps, per worker rank, the table from them
 * to its blocks, so parents and removals resolve there), and the router hashes each stored block's
 * {@code token_ids} itself ({@link BlockHasher}) for the key prompts are matched by. Engine hashes
 * are never compared with the router's, so any engine hashing works.
 *
 * <p>Events the router cannot use are dropped and counted by reason: another cache tier than the
 * GPU (offloaded blocks do not make a prefill cheaper here), a block size other than the
 * router's, or token ids that do not fill the stored blocks exactly. A store whose parent the
 * rank does not hold is rejected by the index itself, never re-rooted.
 *
 * <p>Stateless apart from its counters; safe to call from any thread, events of one rank in order.
 */
public final class VllmEventTranslator {

  /** Why an event was dropped before reaching the index. */
  public enum DropReason {
    OTHER_MEDIUM("other_medium"),
    BLOCK_SIZE_MISMATCH("block_size_mismatch"),
    TOKEN_COUNT_MISMATCH("token_count_mismatch");

    final String label;

    DropReason(String label) {
      this.label = label;
    }
  }

  private final KvEventSink sink;
  private final BlockHasher hasher;
  private final Map<DropReason, Counter> dropped = new EnumMap<>(DropReason.class);

  /**
   * @param blockSize the router's KV block size; stores of another size are dropped
   * @param meters where drops are counted ({@link MetricNames#EVENTS_DROPPED})
   */
  public VllmEventTranslator(KvEventSink sink, int blockSize, MeterRegistry meters) {
    this.sink = sink;
    this.hasher = BlockHasher.of(blockSize);
    for (DropReason reason : DropReason.values()) {
      dropped.put(
          reason,
          Counter.builder(MetricNames.EVENTS_DROPPED)
              .description("KV cache events dropped before the index, by format and reason")
              .tag(MetricNames.TAG_FORMAT, "vllm")
              .tag(MetricNames.TAG_REASON, reason.label)
              .register(meters));
    }
  }

  /** Applies every event of {@code batch}, published by {@code rank}, in order. */
  public void apply(WorkerRank rank, VllmEventBatch batch) {
    for (VllmEvent event : batch.events()) {
      KvCacheEvent translated = translate(event);
      if (translated != null) {
        sink.apply(rank, translated);
      }
    }
  }

  /** The index's form of {@code event}; null (and counted) when it is dropped. */
  KvCacheEvent translate(VllmEvent event) {
    if (event instanceof VllmEvent.BlockStored stored) {
      return stored(stored);
    }
    if (event instanceof VllmEvent.BlockRemoved removed) {
      if (!onGpu(removed.medium())) {
        return drop(DropReason.OTHER_MEDIUM);
      }
      return new KvCacheEvent.Removed(removed.blockHashes());
    }
    return KvCacheEvent.cleared();
  }

  private KvCacheEvent stored(VllmEvent.BlockStored stored) {
    if (!onGpu(stored.medium())) {
      return drop(DropReason.OTHER_MEDIUM);
    }
    if (stored.blockSize() != hasher.blockSize()) {
      return drop(DropReason.BLOCK_SIZE_MISMATCH);
    }
    int[] tokens = stored.tokenIds();
    List<Long> hashes = stored.blockHashes();
    if (tokens.length != (long) hashes.size() * hasher.blockSize()) {
      return drop(DropReason.TOKEN_COUNT_MISMATCH);
    }
    long[] local = hasher.localHashes(tokens);
    List<StoredBlock> blocks = new ArrayList<>(hashes.size());
    for (int i = 0; i < hashes.size(); i++) {
      blocks.add(new StoredBlock(hashes.get(i), local[i]));
    }
    return new KvCacheEvent.Stored(stored.parentBlockHash(), blocks);
  }

  /** Publishers that predate the medium field only ever sent GPU blocks. */
  private static boolean onGpu(String medium) {
    return medium == null || VllmEvent.MEDIUM_GPU.equals(medium);
  }

  private KvCacheEvent drop(DropReason reason) {
    dropped.get(reason).increment();
    return null;
  }
}
