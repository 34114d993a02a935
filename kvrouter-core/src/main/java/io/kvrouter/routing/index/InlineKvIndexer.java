package io.kvrouter.routing.index;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.OverlapScores;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A {@link KvIndexer} that applies each write on the caller's thread before returning, over the
 * same {@link RadixTree} as the sharded one. For a single-threaded caller that must see its writes
 * at once and in a reproducible order: the simulator, which runs in virtual time. Not for
 * concurrent writers.
 */
final class InlineKvIndexer implements KvIndexer {
  private final RadixTree tree = new RadixTree();
  private final EventCounters counters = new EventCounters();

  @Override
  public void apply(WorkerRank worker, KvCacheEvent event) {
    Objects.requireNonNull(worker, "worker");
    Objects.requireNonNull(event, "event");
    counters.record(EventKind.of(event), tree.apply(worker, event));
  }

  @Override
  public void removeWorker(String workerId) {
    tree.removeWorker(Objects.requireNonNull(workerId, "workerId"));
  }

  @Override
  public OverlapScores findMatches(long[] localBlockHashes) {
    return tree.findMatches(Objects.requireNonNull(localBlockHashes, "localBlockHashes"));
  }

  @Override
  public Map<WorkerRank, Long> cachedBlocks() {
    return tree.cachedBlocks();
  }

  @Override
  public CompletionStage<Void> flush() {
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletionStage<List<RouterEvent>> dump() {
    return CompletableFuture.completedFuture(tree.dump(rank -> true));
  }

  @Override
  public KvIndexerStats stats() {
    return counters.stats(0);
  }

  @Override
  public void close() {}
}
