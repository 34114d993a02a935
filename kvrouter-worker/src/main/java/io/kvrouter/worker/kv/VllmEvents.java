package io.kvrouter.worker.kv;

import io.kvrouter.protocol.vllm.VllmEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * A pool's changes in vLLM's KV event format, for a {@link KvEventListener} (a ZMQ publisher, a
 * {@link WorkerKvEventLog}): each operation becomes one batch, a {@code BlockRemoved} per evicted
 * block, a {@code BlockStored} per stored run with its parent and its blocks' tokens, {@code
 * AllBlocksCleared} for a reset, as a vLLM engine publishes them. The blocks must be named by vLLM
 * ({@link VllmSequence}): the tokens are part of the event. A store that begins with a salted
 * sequence's first block lists the salt in that block's {@code extra_keys} ({@code [[salt], null,
 * ...]}), as vLLM does; every other store has no {@code extra_keys}.
 */
public final class VllmEvents implements BlockPoolListener {
  private final KvEventListener listener;

  public VllmEvents(KvEventListener listener) {
    this.listener = listener;
  }

  @Override
  public void onChanges(List<KvChange> changes) {
    List<VllmEvent> batch = new ArrayList<>(changes.size());
    for (KvChange change : changes) {
      if (change instanceof KvChange.Stored stored) {
        batch.add(stored(stored));
      } else if (change instanceof KvChange.Removed removed) {
        removed.hashes().forEach(hash -> batch.add(VllmEvent.BlockRemoved.of(List.of(hash))));
      } else {
        batch.add(new VllmEvent.AllBlocksCleared());
      }
    }
    listener.onEvents(List.copyOf(batch));
  }

  private static VllmEvent stored(KvChange.Stored stored) {
    List<Long> hashes = new ArrayList<>(stored.blocks().size());
    int blockSize = tokensOf(stored.blocks().get(0)).length;
    int[] tokens = new int[stored.blocks().size() * blockSize];
    for (int i = 0; i < stored.blocks().size(); i++) {
      KvBlock block = stored.blocks().get(i);
      hashes.add(block.hash());
      System.arraycopy(tokensOf(block), 0, tokens, i * blockSize, blockSize);
    }
    String salt = ((KvBlock.Vllm) stored.blocks().get(0)).cacheSalt();
    if (salt == null) {
      return VllmEvent.BlockStored.of(hashes, stored.parent(), tokens, blockSize);
    }
    List<List<Object>> extraKeys = new ArrayList<>(hashes.size());
    extraKeys.add(List.of(salt));
    while (extraKeys.size() < hashes.size()) {
      extraKeys.add(null);
    }
    return new VllmEvent.BlockStored(
        hashes,
        stored.parent(),
        tokens,
        blockSize,
        null,
        VllmEvent.MEDIUM_GPU,
        null,
        null,
        null,
        extraKeys);
  }

  private static int[] tokensOf(KvBlock block) {
    if (block instanceof KvBlock.Vllm vllm) {
      return vllm.tokens();
    }
    throw new IllegalArgumentException(
        "vLLM's BlockStored carries the tokens, and block "
            + Long.toUnsignedString(block.hash())
            + " is known by its hashes only");
  }
}
