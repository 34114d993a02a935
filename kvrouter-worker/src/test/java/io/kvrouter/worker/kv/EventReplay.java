package io.kvrouter.worker.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.vllm.VllmEvent;
import io.kvrouter.protocol.vllm.VllmEvent.AllBlocksCleared;
import io.kvrouter.protocol.vllm.VllmEvent.BlockRemoved;
import io.kvrouter.protocol.vllm.VllmEvent.BlockStored;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a consumer of a {@link BlockPool}'s vLLM events knows: the cached blocks, rebuilt from
 * nothing but the events. It fails on an event that cannot be right in order: a store of a block
 * already cached or under a parent that is not, a removal of a block that is not cached.
 */
public final class EventReplay {
  private final Map<Long, String> blocks = new HashMap<>();

  /** Starts from what {@link BlockPool#subscribe} returned. */
  public EventReplay(KvCacheSnapshot start) {
    blocks.putAll(describe(start));
  }

  public void apply(List<VllmEvent> events) {
    for (VllmEvent event : events) {
      if (event instanceof BlockStored stored) {
        store(stored);
      } else if (event instanceof BlockRemoved removed) {
        for (long hash : removed.blockHashes()) {
          assertThat(blocks).as("a removed block was cached").containsKey(hash);
          blocks.remove(hash);
        }
      } else if (event instanceof AllBlocksCleared) {
        blocks.clear();
      }
    }
  }

  private void store(BlockStored stored) {
    assertThat(stored.medium()).isEqualTo(VllmEvent.MEDIUM_GPU);
    int size = stored.blockSize();
    assertThat(stored.tokenIds()).hasSize(stored.blockHashes().size() * size);
    Long parent = stored.parentBlockHash();
    if (parent != null) {
      assertThat(blocks).as("parent of a store is cached").containsKey(parent);
    }
    int[] tokens = stored.tokenIds();
    for (int i = 0; i < stored.blockHashes().size(); i++) {
      long hash = stored.blockHashes().get(i);
      assertThat(blocks).as("a stored block is new").doesNotContainKey(hash);
      blocks.put(hash, entry(parent, Arrays.copyOfRange(tokens, i * size, (i + 1) * size)));
      parent = hash;
    }
  }

  /** Asserts the events rebuilt exactly the blocks, parents and tokens {@code snapshot} holds. */
  public void assertMatches(KvCacheSnapshot snapshot) {
    assertThat(blocks).isEqualTo(describe(snapshot));
  }

  private static Map<Long, String> describe(KvCacheSnapshot snapshot) {
    Map<Long, String> described = new HashMap<>();
    for (KvCacheSnapshot.CachedBlock block : snapshot.blocks()) {
      described.put(block.hash(), entry(block.parentHash(), block.tokens()));
    }
    return described;
  }

  private static String entry(Long parent, int[] tokens) {
    return "parent=" + parent + " tokens=" + Arrays.toString(tokens);
  }
}
