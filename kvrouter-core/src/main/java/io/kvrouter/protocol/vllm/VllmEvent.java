package io.kvrouter.protocol.vllm;

import io.kvrouter.protocol.hash.BlockHasher;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/** One vLLM KV cache event. Optional fields are {@code null} when the publisher left them out. */
public sealed interface VllmEvent
    permits VllmEvent.BlockStored, VllmEvent.BlockRemoved, VllmEvent.AllBlocksCleared {

  /** The GPU tier, vLLM's {@code MEDIUM_GPU}. */
  String MEDIUM_GPU = "GPU";

  /**
   * Blocks newly cached, in order. {@code tokenIds} holds the tokens of all of them ({@code
   * blockHashes.size() * blockSize}).
   *
   * @param parentBlockHash the engine hash of the block before the first one; {@code null} at the
   *     start of a sequence
   * @param loraId deprecated by vLLM; {@code null} when absent
   * @param medium the cache tier ({@code "GPU"}, or e.g. {@code "CPU"} from offload connectors);
   *     {@code null} from publishers that predate it
   * @param loraName the LoRA adapter the blocks were computed with; {@code null} for the base model
   * @param groupIdx the KV cache group of hybrid models; {@code null} when absent
   * @param kvCacheSpecKind the group's kind, e.g. {@code "full_attention"}; {@code null} when
   *     absent
   * @param extraKeys what else went into each block's engine hash besides its tokens and parent
   *     (vLLM's {@code extra_keys}), one entry per block: {@code null} for none, or the block's
   *     keys, e.g. the LoRA name, a multimodal item's {@code (identifier, offset)}, the cache salt
   *     (first block of a sequence only) or a prompt-embeddings digest. The keys are msgpack values
   *     as {@link VllmEventCodec} reads them: {@code null}, {@link Boolean}, {@link Long} ({@link
   *     java.math.BigInteger} above {@link Long#MAX_VALUE}), {@link Double}, {@link String}, a
   *     read-only {@link ByteBuffer} for bin, or a {@code List} of those. {@code null} when the
   *     publisher sent none
   * @param cacheSalt the cache namespace the blocks were stored under, as a top-level {@code
   *     cache_salt} field of a map-encoded store (Dynamo's ZMQ decoder reads it, {@code
   *     lib/kv-router/src/zmq_wire/types.rs}, for producers that send it; vLLM names its salt in
   *     {@code extraKeys} instead); {@code null} when absent. Not part of the array encoding.
   */
  record BlockStored(
      List<Long> blockHashes,
      Long parentBlockHash,
      int[] tokenIds,
      int blockSize,
      Integer loraId,
      String medium,
      String loraName,
      Integer groupIdx,
      String kvCacheSpecKind,
      List<List<Object>> extraKeys,
      String cacheSalt)
      implements VllmEvent {

    public BlockStored {
      blockHashes = List.copyOf(Objects.requireNonNull(blockHashes, "blockHashes"));
      tokenIds = Objects.requireNonNull(tokenIds, "tokenIds").clone();
      if (extraKeys != null) {
        @SuppressWarnings("unchecked")
        List<List<Object>> copy = (List<List<Object>>) immutable(extraKeys);
        extraKeys = copy;
      }
    }

    /** A store without a top-level cache salt (every vLLM store). */
    public BlockStored(
        List<Long> blockHashes,
        Long parentBlockHash,
        int[] tokenIds,
        int blockSize,
        Integer loraId,
        String medium,
        String loraName,
        Integer groupIdx,
        String kvCacheSpecKind,
        List<List<Object>> extraKeys) {
      this(
          blockHashes,
          parentBlockHash,
          tokenIds,
          blockSize,
          loraId,
          medium,
          loraName,
          groupIdx,
          kvCacheSpecKind,
          extraKeys,
          null);
    }

    /** A store without extra keys. */
    public BlockStored(
        List<Long> blockHashes,
        Long parentBlockHash,
        int[] tokenIds,
        int blockSize,
        Integer loraId,
        String medium,
        String loraName,
        Integer groupIdx,
        String kvCacheSpecKind) {
      this(
          blockHashes,
          parentBlockHash,
          tokenIds,
          blockSize,
          loraId,
          medium,
          loraName,
          groupIdx,
          kvCacheSpecKind,
          (List<List<Object>>) null);
    }

    /** A GPU-tier store without LoRA, group or spec kind, as a plain vLLM engine publishes it. */
    public static BlockStored of(
        List<Long> blockHashes, Long parentBlockHash, int[] tokenIds, int blockSize) {
      return new BlockStored(
          blockHashes, parentBlockHash, tokenIds, blockSize, null, MEDIUM_GPU, null, null, null);
    }

    @Override
    public int[] tokenIds() {
      return tokenIds.clone();
    }

    /** The token ids themselves, not a copy, for this package's encoder: must not be changed. */
    int[] tokens() {
      return tokenIds;
    }

    /** How many token ids the event carries. */
    public int tokenCount() {
      return tokenIds.length;
    }

    /**
     * The local hashes of the first {@code blocks} blocks of the token ids by {@code hasher},
     * without copying the ids.
     */
    public long[] localHashes(BlockHasher hasher, int blocks) {
      return hasher.localHashes(tokenIds, 0, blocks * hasher.blockSize());
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof BlockStored other
          && blockHashes.equals(other.blockHashes)
          && Objects.equals(parentBlockHash, other.parentBlockHash)
          && Arrays.equals(tokenIds, other.tokenIds)
          && blockSize == other.blockSize
          && Objects.equals(loraId, other.loraId)
          && Objects.equals(medium, other.medium)
          && Objects.equals(loraName, other.loraName)
          && Objects.equals(groupIdx, other.groupIdx)
          && Objects.equals(kvCacheSpecKind, other.kvCacheSpecKind)
          && Objects.equals(extraKeys, other.extraKeys)
          && Objects.equals(cacheSalt, other.cacheSalt);
    }

    @Override
    public int hashCode() {
      return Objects.hash(blockHashes, parentBlockHash, Arrays.hashCode(tokenIds), blockSize);
    }

    @Override
    public String toString() {
      return "BlockStored[blocks="
          + blockHashes.size()
          + ", parent="
          + parentBlockHash
          + ", tokens="
          + tokenIds.length
          + ", blockSize="
          + blockSize
          + ", medium="
          + medium
          + ", lora="
          + loraName
          + ", group="
          + groupIdx
          + ", kind="
          + kvCacheSpecKind
          + ", extraKeys="
          + (extraKeys != null)
          + ", cacheSalt="
          + (cacheSalt != null)
          + "]";
    }

    /** Lists copied into unmodifiable ones (nulls kept), bin as a read-only view, deeply. */
    private static Object immutable(Object value) {
      if (value instanceof List<?> list) {
        List<Object> copy = new ArrayList<>(list.size());
        for (Object element : list) {
          copy.add(immutable(element));
        }
        return Collections.unmodifiableList(copy);
      }
      if (value instanceof ByteBuffer bytes) {
        return bytes.asReadOnlyBuffer();
      }
      return value;
    }
  }

  /** Blocks evicted, by engine hash. */
  record BlockRemoved(List<Long> blockHashes, String medium, Integer groupIdx)
      implements VllmEvent {
    public BlockRemoved {
      blockHashes = List.copyOf(Objects.requireNonNull(blockHashes, "blockHashes"));
    }

    /** A GPU-tier removal. */
    public static BlockRemoved of(List<Long> blockHashes) {
      return new BlockRemoved(blockHashes, MEDIUM_GPU, null);
    }
  }

  /** Every block of the engine evicted (a prefix-cache reset). */
  record AllBlocksCleared() implements VllmEvent {}
}
