package io.kvrouter.worker.kv;

import io.kvrouter.protocol.KvCacheEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A pool's changes as Dynamo's KV events ({@link KvCacheEvent}), one per change, in order: {@code
 * Stored} with the blocks' sequence and local hashes, {@code Removed} with every block an operation
 * evicted, {@code Cleared}. The blocks must be named by Dynamo's hashes ({@link DynamoSequence}):
 * the local hash is part of the event.
 */
public final class DynamoEvents implements BlockPoolListener {
  private final Consumer<KvCacheEvent> events;

  public DynamoEvents(Consumer<KvCacheEvent> events) {
    this.events = events;
  }

  @Override
  public void onChanges(List<KvChange> changes) {
    for (KvChange change : changes) {
      if (change instanceof KvChange.Stored stored) {
        List<KvCacheEvent.StoredBlock> blocks = new ArrayList<>(stored.blocks().size());
        stored.blocks().forEach(block -> blocks.add(storedBlock(block)));
        events.accept(new KvCacheEvent.Stored(stored.parent(), blocks));
      } else if (change instanceof KvChange.Removed removed) {
        events.accept(new KvCacheEvent.Removed(removed.hashes()));
      } else {
        events.accept(KvCacheEvent.cleared());
      }
    }
  }

  private static KvCacheEvent.StoredBlock storedBlock(KvBlock block) {
    if (block instanceof KvBlock.Dynamo dynamo) {
      return new KvCacheEvent.StoredBlock(dynamo.hash(), dynamo.tokensHash());
    }
    throw new IllegalArgumentException(
        "Dynamo's Stored carries the local hash, and block "
            + Long.toUnsignedString(block.hash())
            + " is not named by Dynamo's hashes");
  }
}
