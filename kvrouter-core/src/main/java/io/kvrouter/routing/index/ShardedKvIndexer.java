package io.kvrouter.routing.index;

import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.OverlapScores;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link KvIndexer} over one shared {@link RadixTree}, written by one thread per shard.
 *
 * <h2>Why this design</h2>
 *
 * The options were one tree per shard, merged on read, or one tree written by every shard (what
 * Dynamo's default, a {@code ConcurrentRadixTree} behind a thread pool, does). Per-shard trees make
 * every read walk every tree and store shared prefixes once per shard, and Dynamo measured such
 * scatter-gather at 77% read overhead. So there is one tree, and the shards split the workers:
 *
 * <ul>
 *   <li>A worker id maps to one shard for good, so its events are applied in order by one thread,
 *       and everything only that worker touches (its lookup table, its blocks) is confined to that
 *       thread with no synchronization.
 *   <li>Workers of different shards meet only at tree nodes. A node's worker set and its children
 *       are immutable values swapped by compare-and-set, so writers never lock and readers ({@link
 *       #findMatches} on event loops) only do volatile reads: they never block and never see a
 *       half-built set.
 *   <li>A node whose last worker leaves is marked dead before it is unlinked; a writer that finds a
 *       dead node helps unlink it and creates a new one, so no worker is ever added to a node on
 *       its way out.
 * </ul>
 *
 * <p>What a read guarantees: each worker's score lies between the lowest and the highest score that
 * worker had while the read ran (writers add a worker to a path top-down and remove it bottom-up,
 * so each worker's blocks always form a path from the root). A read is not a snapshot across
 * workers: two workers may be seen at different moments. Once writes stop (after {@link #flush}),
 * reads are exact.
 *
 * <p>Queues are unbounded so that producers on event loops never block; {@link
 * KvIndexerStats#pending} shows a backlog.
 */
final class ShardedKvIndexer implements KvIndexer {
  private static final Logger log = LoggerFactory.getLogger(ShardedKvIndexer.class);

  private final RadixTree tree = new RadixTree();
  private final Shard[] shards;
  private final EventCounters counters = new EventCounters();
  private final LongAdder pending = new LongAdder();
  private volatile boolean closed;

  ShardedKvIndexer(int shards, MeterRegistry meterRegistry, ThreadFactory threads) {
    if (shards < 1) {
      throw new IllegalArgumentException("shards must be >= 1: " + shards);
    }
    Objects.requireNonNull(threads, "threads");
    this.shards = new Shard[shards];
    for (int i = 0; i < shards; i++) {
      this.shards[i] = new Shard(i, threads);
    }
    if (meterRegistry != null) {
      counters.bindTo(meterRegistry);
      Gauge.builder(MetricNames.INDEXER_PENDING_EVENTS, pending, LongAdder::sum)
          .description("KV cache events accepted and not yet applied to the index")
          .register(meterRegistry);
    }
    for (Shard shard : this.shards) {
      shard.thread.start();
    }
  }

  static ThreadFactory daemonThreads() {
    AtomicInteger count = new AtomicInteger();
    return task -> {
      Thread t = new Thread(task, "kvrouter-indexer-" + count.getAndIncrement());
      t.setDaemon(true);
      return t;
    };
  }

  @Override
  public void apply(WorkerRank worker, KvCacheEvent event) {
    Objects.requireNonNull(worker, "worker");
    Objects.requireNonNull(event, "event");
    if (closed) {
      return;
    }
    pending.increment();
    shardOf(worker.workerId()).queue.offer(new Apply(worker, event));
  }

  @Override
  public void removeWorker(String workerId) {
    Objects.requireNonNull(workerId, "workerId");
    if (!closed) {
      shardOf(workerId).queue.offer(new Remove(workerId));
    }
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
    List<CompletableFuture<Void>> done = new ArrayList<>(shards.length);
    for (Shard shard : shards) {
      done.add(shard.submit(new Flush(new CompletableFuture<>())).done);
    }
    return CompletableFuture.allOf(done.toArray(new CompletableFuture<?>[0]));
  }

  @Override
  public CompletionStage<List<RouterEvent>> dump() {
    List<CompletableFuture<List<RouterEvent>>> parts = new ArrayList<>(shards.length);
    for (Shard shard : shards) {
      parts.add(shard.submit(new Dump(new CompletableFuture<>())).done);
    }
    return CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0]))
        .thenApply(
            ignored -> {
              List<RouterEvent> all = new ArrayList<>();
              for (CompletableFuture<List<RouterEvent>> part : parts) {
                all.addAll(part.join());
              }
              return all;
            });
  }

  @Override
  public KvIndexerStats stats() {
    return counters.stats(pending.sum());
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (Shard shard : shards) {
      shard.queue.offer(Stop.STOP);
    }
    boolean interrupted = false;
    for (Shard shard : shards) {
      while (shard.thread != Thread.currentThread() && shard.thread.isAlive()) {
        try {
          shard.thread.join();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** The tree, for checks in tests; reading its writer-side state needs the writers idle. */
  RadixTree tree() {
    return tree;
  }

  private Shard shardOf(String workerId) {
    return shards[shardIndex(workerId, shards.length)];
  }

  static int shardIndex(String workerId, int shardCount) {
    int h = workerId.hashCode() * 0x9E3779B9;
    return Math.floorMod(h ^ (h >>> 16), shardCount);
  }

  /** Work for a writer thread. */
  private interface Task {}

  private record Apply(WorkerRank worker, KvCacheEvent event) implements Task {}

  private record Remove(String workerId) implements Task {}

  private record Flush(CompletableFuture<Void> done) implements Task {}

  private record Dump(CompletableFuture<List<RouterEvent>> done) implements Task {}

  private enum Stop implements Task {
    STOP
  }

  private final class Shard implements Runnable {
    final int index;
    final LinkedTransferQueue<Task> queue = new LinkedTransferQueue<>();
    final Thread thread;

    /** Completes when the thread has stopped and settled what was left in its queue. */
    final CompletableFuture<Void> stopped = new CompletableFuture<>();

    Shard(int index, ThreadFactory threads) {
      this.index = index;
      this.thread = threads.newThread(this);
    }

    /**
     * Queues a flush or dump marker. A marker queued before {@code close} is handled before the
     * stop signal; one that may have raced past it is settled once the thread has stopped.
     */
    <T extends Task> T submit(T marker) {
      if (!closed) {
        queue.offer(marker);
        if (!closed) {
          return marker;
        }
      }
      stopped.thenRun(() -> settle(marker));
      return marker;
    }

    @Override
    public void run() {
      try {
        while (true) {
          Task task = queue.take();
          if (task == Stop.STOP) {
            return;
          }
          try {
            handle(task);
          } catch (RuntimeException e) {
            log.error("KV indexer task failed: {}", task, e);
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        Task left;
        while ((left = queue.poll()) != null) {
          settle(left);
        }
        stopped.complete(null);
      }
    }

    private void handle(Task task) {
      if (task instanceof Apply) {
        Apply a = (Apply) task;
        pending.decrement();
        if (closed) {
          return;
        }
        Outcome outcome = tree.apply(a.worker(), a.event());
        counters.record(EventKind.of(a.event()), outcome);
        if (outcome != Outcome.APPLIED && log.isDebugEnabled()) {
          log.debug("KV event of {} not applied ({}): {}", a.worker(), outcome.label, a.event());
        }
      } else if (task instanceof Remove) {
        if (!closed) {
          tree.removeWorker(((Remove) task).workerId());
        }
      } else if (task instanceof Flush) {
        ((Flush) task).done().complete(null);
      } else if (task instanceof Dump) {
        CompletableFuture<List<RouterEvent>> done = ((Dump) task).done();
        try {
          done.complete(tree.dump(rank -> shardIndex(rank.workerId(), shards.length) == index));
        } catch (RuntimeException e) {
          done.completeExceptionally(e);
          throw e;
        }
      }
    }

    /** Settles a task left behind when the thread stopped. */
    private void settle(Task task) {
      if (task instanceof Apply) {
        pending.decrement();
      } else if (task instanceof Flush) {
        ((Flush) task).done().complete(null);
      } else if (task instanceof Dump) {
        ((Dump) task).done().completeExceptionally(new IllegalStateException("indexer closed"));
      }
    }
  }
}
