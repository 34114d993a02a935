package io.kvrouter.events;

import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.protocol.vllm.SaltedChains;
import io.kvrouter.protocol.vllm.VllmCacheSalt;
import io.kvrouter.protocol.vllm.VllmEvent;
import io.kvrouter.protocol.vllm.VllmEventBatch;
import io.kvrouter.routing.index.KvEventSink;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns vLLM's KV cache events into the index's events, as Dynamo's router does: the engine's block
 * hashes stay the blocks' addresses (the index keeps, per worker rank, the table from them to its
 * blocks, so parents and removals resolve there), and the router hashes each stored block's {@code
 * token_ids} itself ({@link BlockHasher}) for the key prompts are matched by. Engine hashes are
 * never compared with the router's, so any engine hashing works.
 *
 * <p>Blocks computed with a LoRA adapter ({@code lora_name}) are hashed with that adapter's seed
 * ({@link BlockHasher#of(int, String)}), as Dynamo does, so they match only prompts hashed for the
 * same adapter, never the base model's.
 *
 * <p>Blocks stored under a cache namespace are hashed with it ({@link BlockHasher#of(int, String,
 * String)}), so they match only prompts of the same namespace: the namespace is read, as Dynamo
 * reads it, from the tagged salt in the first block's {@code extra_keys} ({@link
 * VllmCacheSalt#namespaceIn}); a store that continues a salted sequence (no salt of its own, a
 * salted parent) gets its parent's ({@link SaltedChains}).
 *
 * <p>Events the router cannot use are dropped and counted by {@link DropReason}:
 *
 * <ul>
 *   <li>another cache tier than the GPU (offloaded blocks do not make a prefill cheaper here);
 *   <li>another KV cache group than full attention. Hybrid models (sliding window, Mamba or linear
 *       attention beside full attention) publish every store once per group, and only the
 *       full-attention groups hold a reusable prefix. A store says its group's kind ({@code
 *       kv_cache_spec_kind}) and is kept for full, MLA and sink-full attention, as in Dynamo; one
 *       without a kind is kept for group 0 or no group. A removal names only its group, so the
 *       translator remembers, per rank, the groups whose stores said they are full attention, and
 *       keeps removals of those; before any store has said so, only group 0's. (Dynamo keeps only
 *       group 0's removals, but vLLM numbers the groups in layer order, so full attention is not
 *       group 0 in a model whose first layer is sliding-window or linear attention.) Removals from
 *       every full-attention group are kept: a prefix is reused only while all of them hold it;
 *   <li>a block size other than the router's, or token ids that do not fill the stored blocks;
 *   <li>a LoRA id without a LoRA name (vLLM before {@code lora_name}): the blocks depend on an
 *       adapter the router cannot name, so hashing them as the base model's would be wrong;
 *   <li>extra keys that token ids cannot reproduce: a multimodal item, an untagged cache salt,
 *       prompt embeddings (anything but the LoRA name and a tagged salt, which the seed covers).
 *       Image placeholder tokens are the same for every image, so hashing such blocks from tokens
 *       alone would match prompts the engine cannot reuse them for. Dynamo folds multimodal hashes
 *       and its own tagged salt into the block hash instead, which needs the same hashing on the
 *       request side; the router does the salt only. A store is cut before its first such block
 *       (the text before an image still matches) and counted once; later stores under the cut
 *       blocks name a parent the rank does not hold and are rejected by the index.
 * </ul>
 *
 * A store whose parent the rank does not hold is rejected by the index itself, never re-rooted.
 *
 * <p>Safe to call from any thread, events of one rank in order. Its state is its counters and, per
 * rank ever seen, the few full-attention group numbers.
 */
public final class VllmEventTranslator {

  /** Why an event was dropped before reaching the index. */
  public enum DropReason {
    OTHER_MEDIUM("other_medium"),
    OTHER_KV_GROUP("other_kv_group"),
    BLOCK_SIZE_MISMATCH("block_size_mismatch"),
    TOKEN_COUNT_MISMATCH("token_count_mismatch"),
    UNNAMED_LORA("unnamed_lora"),
    EXTRA_KEYS("extra_keys");

    final String label;

    DropReason(String label) {
      this.label = label;
    }
  }

  /**
   * vLLM's {@code KVCacheSpecKind} values whose blocks hold every earlier token's KV: the groups
   * that describe a reusable prefix. Any other kind, known or not, does not.
   */
  private static final Set<String> FULL_ATTENTION_KINDS =
      Set.of("full_attention", "mla_attention", "sink_full_attention");

  private final KvEventSink sink;
  private final BlockHasher hasher;
  private final Map<DropReason, Counter> dropped = new EnumMap<>(DropReason.class);

  /** Per rank, the KV cache groups its stores said are full attention. */
  private final Map<WorkerRank, Set<Integer>> fullAttentionGroups = new ConcurrentHashMap<>();

  /** Per rank, the namespaces of its salted blocks. */
  private final Map<WorkerRank, SaltedChains> saltedChains = new ConcurrentHashMap<>();

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
      KvCacheEvent translated = translate(rank, event);
      if (translated != null) {
        sink.apply(rank, translated);
      }
    }
  }

  /** The index's form of {@code event}; null (and counted) when it is dropped. */
  private KvCacheEvent translate(WorkerRank rank, VllmEvent event) {
    if (event instanceof VllmEvent.BlockStored stored) {
      return stored(rank, stored);
    }
    if (event instanceof VllmEvent.BlockRemoved removed) {
      if (!onGpu(removed.medium())) {
        return drop(DropReason.OTHER_MEDIUM);
      }
      if (!fullAttentionRemoval(rank, removed.groupIdx())) {
        return drop(DropReason.OTHER_KV_GROUP);
      }
      SaltedChains chains = saltedChains.get(rank);
      if (chains != null) {
        chains.removed(removed.blockHashes());
      }
      return new KvCacheEvent.Removed(removed.blockHashes());
    }
    SaltedChains chains = saltedChains.get(rank);
    if (chains != null) {
      chains.cleared();
    }
    return KvCacheEvent.cleared();
  }

  private KvCacheEvent stored(WorkerRank rank, VllmEvent.BlockStored stored) {
    if (!onGpu(stored.medium())) {
      return drop(DropReason.OTHER_MEDIUM);
    }
    // before the block size: the other groups may use blocks of another size
    if (!fullAttentionStore(rank, stored)) {
      return drop(DropReason.OTHER_KV_GROUP);
    }
    int bs = hasher.blockSize();
    if (stored.blockSize() != bs) {
      return drop(DropReason.BLOCK_SIZE_MISMATCH);
    }
    List<Long> hashes = stored.blockHashes();
    if (stored.tokenCount() != (long) hashes.size() * bs) {
      return drop(DropReason.TOKEN_COUNT_MISMATCH);
    }
    String lora = stored.loraName();
    if (lora != null && lora.isEmpty()) {
      lora = null; // as in Dynamo, an empty name is no adapter
    }
    // vLLM hands out LoRA ids from 1, so 0 names no adapter either
    if (lora == null && stored.loraId() != null && stored.loraId() != 0) {
      return drop(DropReason.UNNAMED_LORA);
    }
    String named = VllmCacheSalt.namedBy(stored);
    int usable = hashableBlocks(stored, hashes.size(), lora, named);
    if (usable < hashes.size()) {
      drop(DropReason.EXTRA_KEYS);
      if (usable == 0) {
        return null;
      }
    }
    SaltedChains chains = saltedChains.computeIfAbsent(rank, r -> new SaltedChains());
    String namespace = chains.namespaceOf(stored.parentBlockHash(), named);
    BlockHasher blockHasher =
        lora == null && namespace == null ? hasher : BlockHasher.of(bs, lora, namespace);
    long[] local = stored.localHashes(blockHasher, usable);
    List<StoredBlock> blocks = new ArrayList<>(usable);
    for (int i = 0; i < usable; i++) {
      blocks.add(new StoredBlock(hashes.get(i), local[i]));
    }
    chains.stored(hashes.subList(0, usable), namespace);
    return new KvCacheEvent.Stored(stored.parentBlockHash(), blocks);
  }

  /**
   * Forgets what the ranks of {@code workerId} said about their KV cache groups (the worker left):
   * a worker that joins again under that id may run another model.
   */
  public void forget(String workerId) {
    fullAttentionGroups.keySet().removeIf(rank -> rank.workerId().equals(workerId));
    saltedChains.keySet().removeIf(rank -> rank.workerId().equals(workerId));
  }

  /** Whether {@code stored} is from a full-attention group; remembers the group if it says so. */
  private boolean fullAttentionStore(WorkerRank rank, VllmEvent.BlockStored stored) {
    Integer group = stored.groupIdx();
    String kind = stored.kvCacheSpecKind();
    if (kind == null) {
      return group == null || group == 0;
    }
    boolean full = FULL_ATTENTION_KINDS.contains(kind);
    if (full && group != null) {
      fullAttentionGroups.computeIfAbsent(rank, r -> ConcurrentHashMap.newKeySet()).add(group);
    }
    return full;
  }

  /** Whether a removal from {@code group} concerns full attention, by what the stores said. */
  private boolean fullAttentionRemoval(WorkerRank rank, Integer group) {
    if (group == null) {
      return true;
    }
    Set<Integer> known = fullAttentionGroups.get(rank);
    return known == null ? group == 0 : known.contains(group);
  }

  /**
   * How many leading blocks have no extra keys but the LoRA name (vLLM lists it first, in every
   * block) and, in the first block, the salt of the {@code namespace} the store names ({@link
   * VllmCacheSalt#isSaltOf}): the hasher's seed stands for both. An absent entry counts as no keys,
   * as in Dynamo.
   */
  private static int hashableBlocks(
      VllmEvent.BlockStored stored, int blocks, String lora, String namespace) {
    List<List<Object>> extraKeys = stored.extraKeys();
    if (extraKeys == null) {
      return blocks;
    }
    for (int i = 0; i < blocks && i < extraKeys.size(); i++) {
      List<Object> keys = extraKeys.get(i);
      if (keys == null) {
        continue;
      }
      int from = lora != null && !keys.isEmpty() && lora.equals(keys.get(0)) ? 1 : 0;
      for (int k = from; k < keys.size(); k++) {
        Object key = keys.get(k);
        if (i != 0 || key == null || !VllmCacheSalt.isSaltOf(key, namespace, stored)) {
          return i;
        }
      }
    }
    return blocks;
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
