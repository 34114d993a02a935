package io.kvrouter.protocol.vllm;

import java.util.Arrays;
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
   * @param groupIdx the KV cache group of hybrid models; {@code null} when absent
   * @param kvCacheSpecKind e.g. {@code "full_attention"}; {@code null} when absent
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
      String kvCacheSpecKind)
      implements VllmEvent {

    public BlockStored {
      blockHashes = List.copyOf(Objects.requireNonNull(blockHashes, "blockHashes"));
      tokenIds = Objects.requireNonNull(tokenIds, "tokenIds").clone();
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
          && Objects.equals(kvCacheSpecKind, other.kvCacheSpecKind);
    }

    @Override
    public int hashCode() {
      return Objects.hash(blockHashes, parentBlockHash, Arrays.hashCode(tokenIds), blockSize);
    }

    @Override
    public String toString() {
      return "BlockStored[blocks=" + blockHashes.size() + ", parent=" + parentBlockHash
          + ", tokens=" + tokenIds.length + ", blockSize=" + blockSize + ", medium=" + medium
          + "]";
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
