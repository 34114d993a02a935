package io.kvrouter.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.OverlapScores;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.routing.index.KvIndexer;
import io.kvrouter.routing.index.KvIndexerStats;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import net.openhft.hashing.LongHashFunction;

/**
 * The Mooncake synthetic trace ({@code traces/} of the repository, or the file named by the
 * environment variable {@code KVROUTER_TRACE}) replayed through a mock engine per worker rank: the
 * KV cache events the engines emit, their final state, and every request as a prompt. Shared by the
 * indexer benchmarks ({@link KvIndexerBenchmark}, {@link KvIndexerLatencyBenchmark}).
 *
 * <p>Every request goes to a worker rank drawn at random (seed 42), as in Dynamo's {@code
 * mooncake_bench}. Each trace hash id stands for 512 tokens; with a block size of {@code bs} it
 * becomes {@code 512 / bs} blocks whose local hash is {@code xx3(1337)} over {@code (hashId,
 * sub-block)}, so equal ids at equal positions give equal blocks. Only complete blocks count
 * ({@code floor(input_length / 512)} ids). Block hashes (the engine's sequence hashes) are the
 * router's chain of those local hashes. Each rank runs a mock engine of a fixed capacity in blocks
 * with LRU eviction, touching a request's blocks leaf first so that children are evicted before
 * their parents: per request it emits one {@code Removed} with the blocks it evicts to make room
 * (if any), then one {@code Stored} with the blocks it did not hold, under the last block of the
 * prefix it held. A request longer than the capacity is skipped (the engine could not hold it).
 */
final class MooncakeReplay {

  /** Tokens per trace hash id. */
  static final int TRACE_BLOCK_TOKENS = 512;

  /** Dynamo's mocker: 16,384 GPU blocks of 64 tokens per worker. */
  static final int ENGINE_CAPACITY_TOKENS = 16_384 * 64;

  private static final LongHashFunction XX3 = LongHashFunction.xx3(BlockHasher.DEFAULT_SEED);

  final WorkerRank[] ranks;
  final int blockSize;
  final int capacityBlocks;
  final List<RouterEvent> events = new ArrayList<>();

  /** Per rank (same order as {@link #ranks}), the block hashes it holds at the end. */
  final List<Set<Long>> held = new ArrayList<>();

  /** Every request of the trace as local block hashes, in trace order. */
  final long[][] localPrompts;

  /** The same prompts as block (sequence) hashes. */
  final long[][] seqPrompts;

  long promptBlocks;
  int passes;
  long skippedRequests;
  long storedEvents;
  long storedBlocks;
  long removedEvents;
  long removedBlocks;

  private MooncakeReplay(WorkerRank[] ranks, int prompts, int blockSize, int capacityBlocks) {
    this.ranks = ranks;
    this.localPrompts = new long[prompts][];
    this.seqPrompts = new long[prompts][];
    this.blockSize = blockSize;
    this.capacityBlocks = capacityBlocks;
  }

  // ---- the trace ------------------------------------------------------------------------------

  static Path tracePath() {
    String env = System.getenv("KVROUTER_TRACE");
    return Path.of(env != null ? env : "traces/mooncake_synthetic_trace.jsonl");
  }

  /** The trace's requests as hash ids, complete 512-token blocks only. */
  static List<long[]> loadTrace() {
    Path path = tracePath();
    ObjectMapper json = new ObjectMapper();
    List<long[]> requests = new ArrayList<>();
    try (BufferedReader in = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode r = json.readTree(line);
        JsonNode ids = r.get("hash_ids");
        int full = Math.min(ids.size(), r.get("input_length").asInt() / TRACE_BLOCK_TOKENS);
        long[] hashIds = new long[full];
        for (int i = 0; i < full; i++) {
          hashIds[i] = ids.get(i).asLong();
        }
        requests.add(hashIds);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the trace " + path.toAbsolutePath(), e);
    }
    return requests;
  }

  // ---- replays --------------------------------------------------------------------------------

  /** One pass over the trace, each rank with Dynamo's mocker capacity (16,384 × 64 tokens). */
  static MooncakeReplay of(List<long[]> requests, int workers, int blockSize) {
    return replay(requests, workers, blockSize, ENGINE_CAPACITY_TOKENS / blockSize, false, 1);
  }

  /**
   * Passes over the trace (the same requests, each pass continuing the same random rank assignment)
   * until every rank's engine holds {@code capacityBlocks} blocks at the end of a pass, so the
   * index ends with exactly {@code workers × capacityBlocks} (block, rank) entries.
   *
   * @throws IllegalStateException if the engines are not all full after {@code maxPasses}
   */
  static MooncakeReplay untilFull(
      List<long[]> requests, int workers, int blockSize, int capacityBlocks, int maxPasses) {
    return replay(requests, workers, blockSize, capacityBlocks, true, maxPasses);
  }

  private static MooncakeReplay replay(
      List<long[]> requests,
      int workers,
      int blockSize,
      int capacityBlocks,
      boolean untilFull,
      int maxPasses) {
    if (TRACE_BLOCK_TOKENS % blockSize != 0) {
      throw new IllegalArgumentException("block size must divide 512: " + blockSize);
    }
    WorkerRank[] ranks = new WorkerRank[workers];
    MockEngine[] engines = new MockEngine[workers];
    for (int w = 0; w < workers; w++) {
      ranks[w] = WorkerRank.of("worker-" + w);
      engines[w] = new MockEngine(capacityBlocks);
    }
    MooncakeReplay replay = new MooncakeReplay(ranks, requests.size(), blockSize, capacityBlocks);
    for (int r = 0; r < requests.size(); r++) {
      long[] local = localHashes(requests.get(r), blockSize);
      replay.localPrompts[r] = local;
      replay.seqPrompts[r] = BlockHasher.chain(local);
      replay.promptBlocks += local.length;
    }
    SplittableRandom random = new SplittableRandom(42);
    do {
      replay.passes++;
      for (int r = 0; r < requests.size(); r++) {
        int w = random.nextInt(workers);
        engines[w].serve(ranks[w], replay.localPrompts[r], replay.seqPrompts[r], replay);
      }
    } while (untilFull && !allFull(engines) && replay.passes < maxPasses);
    if (untilFull && !allFull(engines)) {
      throw new IllegalStateException(
          "engines not full after " + maxPasses + " passes: " + replay.summary());
    }
    for (MockEngine e : engines) {
      replay.held.add(new HashSet<>(e.lru.keySet()));
    }
    return replay;
  }

  /** A request's hash ids as local block hashes at {@code blockSize} tokens per block. */
  static long[] localHashes(long[] hashIds, int blockSize) {
    int perId = TRACE_BLOCK_TOKENS / blockSize;
    long[] local = new long[hashIds.length * perId];
    long[] pair = new long[2];
    for (int i = 0; i < local.length; i++) {
      pair[0] = hashIds[i / perId];
      pair[1] = i % perId;
      local[i] = XX3.hashLongs(pair);
    }
    return local;
  }

  private static boolean allFull(MockEngine[] engines) {
    for (MockEngine e : engines) {
      if (e.lru.size() < e.capacity) {
        return false;
      }
    }
    return true;
  }

  /** (block, rank) entries at the end: blocks held, summed over ranks. */
  long heldEntries() {
    long n = 0;
    for (Set<Long> s : held) {
      n += s.size();
    }
    return n;
  }

  NaiveIndex naiveIndex() {
    return new NaiveIndex(ranks, held);
  }

  String summary() {
    return String.format(
        "%d ranks, block size %d: %d events (%d Stored with %d blocks, %d Removed with %d blocks)",
        ranks.length,
        blockSize,
        events.size(),
        storedEvents,
        storedBlocks,
        removedEvents,
        removedBlocks);
  }

  static void requireAllApplied(KvIndexerStats stats, long events) {
    if (stats.applied() != events || stats.rejected() != 0 || stats.pending() != 0) {
      throw new IllegalStateException("expected " + events + " events applied, got " + stats);
    }
  }

  /**
   * A new indexer ({@link KvIndexer#DEFAULT_SHARDS} writers) with every event applied and flushed.
   */
  KvIndexer buildIndexer() {
    KvIndexer indexer = KvIndexer.create(KvIndexer.DEFAULT_SHARDS, null);
    for (RouterEvent e : events) {
      indexer.apply(e.worker(), e.event());
    }
    indexer.flush().toCompletableFuture().join();
    requireAllApplied(indexer.stats(), events.size());
    return indexer;
  }

  /**
   * Scores every prompt on the tree ({@code local[i]}) and on the naive index ({@code seq[i]}, the
   * same prompt as block hashes); returns the tree's scores.
   *
   * @throws IllegalStateException at the first prompt the two score differently
   */
  static OverlapScores[] scoreAlike(
      KvIndexer indexer, NaiveIndex naive, long[][] local, long[][] seq) {
    OverlapScores[] scores = new OverlapScores[local.length];
    for (int i = 0; i < local.length; i++) {
      OverlapScores tree = indexer.findMatches(local[i]);
      OverlapScores model = naive.findMatches(seq[i]);
      if (!tree.equals(model)) {
        throw new IllegalStateException(
            "prompt " + i + ": tree " + tree + " but naive index " + model);
      }
      scores[i] = tree;
    }
    return scores;
  }

  /**
   * One rank's KV cache: the block hashes it holds in LRU order (eldest first). A request touches
   * its blocks from the last to the first, so a parent is always more recent than its children and
   * eviction takes leaves first, keeping the held set closed under prefixes.
   */
  static final class MockEngine {
    final int capacity;
    final LinkedHashMap<Long, Boolean> lru = new LinkedHashMap<>();

    MockEngine(int capacity) {
      this.capacity = capacity;
    }

    void serve(WorkerRank rank, long[] local, long[] seq, MooncakeReplay out) {
      int n = seq.length;
      if (n > capacity) {
        out.skippedRequests++;
        return;
      }
      int hit = 0;
      while (hit < n && lru.containsKey(seq[hit])) {
        hit++;
      }
      touch(seq, 0, hit);
      int evict = lru.size() + (n - hit) - capacity;
      if (evict > 0) {
        long[] removed = new long[evict];
        Iterator<Long> eldest = lru.keySet().iterator();
        for (int i = 0; i < evict; i++) {
          removed[i] = eldest.next();
          eldest.remove();
        }
        out.events.add(new RouterEvent(rank, KvCacheEvent.removed(removed)));
        out.removedEvents++;
        out.removedBlocks += evict;
      }
      if (hit < n) {
        List<StoredBlock> blocks = new ArrayList<>(n - hit);
        for (int i = hit; i < n; i++) {
          blocks.add(new StoredBlock(seq[i], local[i]));
        }
        Long parent = hit == 0 ? null : seq[hit - 1];
        out.events.add(new RouterEvent(rank, new KvCacheEvent.Stored(parent, blocks)));
        out.storedEvents++;
        out.storedBlocks += n - hit;
      }
      touch(seq, 0, n);
    }

    /** Moves seq[from, to) to the most recent end, the last block first. */
    private void touch(long[] seq, int from, int to) {
      for (int i = to - 1; i >= from; i--) {
        lru.remove(seq[i]);
        lru.put(seq[i], Boolean.TRUE);
      }
    }
  }

  /**
   * The baseline index: per rank the set of block (sequence) hashes it holds; a prompt walks each
   * rank's set from block 0.
   */
  static final class NaiveIndex {
    private final WorkerRank[] ranks;
    private final List<Set<Long>> sets;

    NaiveIndex(WorkerRank[] ranks, List<Set<Long>> sets) {
      this.ranks = Objects.requireNonNull(ranks);
      this.sets = Objects.requireNonNull(sets);
    }

    OverlapScores findMatches(long[] sequenceHashes) {
      Map<WorkerRank, Integer> overlap = new HashMap<>();
      Map<WorkerRank, Long> cached = new HashMap<>();
      for (int w = 0; w < ranks.length; w++) {
        Set<Long> set = sets.get(w);
        int depth = 0;
        while (depth < sequenceHashes.length && set.contains(sequenceHashes[depth])) {
          depth++;
        }
        if (depth > 0) {
          overlap.put(ranks[w], depth);
          cached.put(ranks[w], (long) set.size());
        }
      }
      return new OverlapScores(overlap, cached);
    }
  }

  /** Hands out prompts in order, from the first again after the last (one benchmark's cursor). */
  static final class Cycle {
    private int cursor;

    long[] next(long[][] prompts) {
      long[] p = prompts[cursor];
      cursor = cursor + 1 == prompts.length ? 0 : cursor + 1;
      return p;
    }
  }
}
