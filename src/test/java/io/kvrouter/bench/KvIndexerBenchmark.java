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
import java.util.concurrent.TimeUnit;
import net.openhft.hashing.LongHashFunction;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The KV indexer on the Mooncake synthetic trace ({@code ../shared/traces}, or the file named by
 * the environment variable {@code KVROUTER_TRACE}), replayed through a mock engine per worker rank.
 *
 * <h2>The replay (built in the trial setup, outside measurement)</h2>
 *
 * Every request goes to a worker rank drawn at random (seed 42), as in Dynamo's {@code
 * mooncake_bench}. Each trace hash id stands for 512 tokens; with a block size of {@code bs} it
 * becomes {@code 512 / bs} blocks whose local hash is {@code xx3(1337)} over {@code (hashId,
 * sub-block)}, so equal ids at equal positions give equal blocks. Only complete blocks count
 * ({@code floor(input_length / 512)} ids). Block hashes (the engine's sequence hashes) are the
 * router's chain of those local hashes. Each rank runs a mock engine with Dynamo's mocker capacity
 * (16,384 blocks of 64 tokens, i.e. {@code 1,048,576 / bs} blocks) and LRU eviction, touching a
 * request's blocks leaf first so that children are evicted before their parents: per request it
 * emits one {@code Removed} with the blocks it evicts to make room (if any), then one {@code Stored}
 * with the blocks it did not hold, under the last block of the prefix it held.
 *
 * <h2>Benchmarks</h2>
 *
 * <ul>
 *   <li>{@code findMatches}: {@link KvIndexer#findMatches} on the tree the whole replay leaves, one
 *       prompt per call, cycling through every request of the trace in order.
 *   <li>{@code baselineNaiveFindMatches}: the same prompts against a naive index of the same final
 *       state: per rank a {@code HashSet<Long>} of the block (sequence) hashes it holds; a prompt is
 *       scored by walking its sequence hashes from block 0 in every rank's set. The baseline is
 *       handed the prompt's sequence hashes precomputed (the tree gets local hashes), which favours
 *       it. The setup checks that both give the same scores for every prompt.
 *   <li>{@code applyReplay}: the whole replay's events applied through a fresh sharded indexer
 *       ({@code KvIndexer.create(shards, null)}), then {@code flush()} waited for: one op is the
 *       whole event stream, from an empty tree. The setup of each op (a new indexer and its threads)
 *       is outside measurement; the teardown checks that every event was applied.
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
public class KvIndexerBenchmark {

  /** Tokens per trace hash id. */
  static final int TRACE_BLOCK_TOKENS = 512;

  /** Dynamo's mocker: 16,384 GPU blocks of 64 tokens per worker. */
  static final int ENGINE_CAPACITY_TOKENS = 16_384 * 64;

  private static final LongHashFunction XX3 = LongHashFunction.xx3(BlockHasher.DEFAULT_SEED);

  // ---- find matches ---------------------------------------------------------------------------

  @State(Scope.Thread)
  public static class MatchState {
    @Param({"8", "64"})
    public int workers;

    @Param({"512", "64"})
    public int blockSize;

    KvIndexer indexer;
    NaiveIndex naive;
    long[][] localPrompts;
    long[][] seqPrompts;
    int cursor;

    @Setup(Level.Trial)
    public void setUp() {
      Replay replay = Replay.of(Trace.load(), workers, blockSize);
      indexer = KvIndexer.create(KvIndexer.DEFAULT_SHARDS, null);
      for (RouterEvent e : replay.events) {
        indexer.apply(e.worker(), e.event());
      }
      indexer.flush().toCompletableFuture().join();
      requireAllApplied(indexer.stats(), replay.events.size());
      naive = new NaiveIndex(replay.ranks, replay.held);
      localPrompts = replay.localPrompts;
      seqPrompts = replay.seqPrompts;
      long matchedBlocks = 0;
      for (int i = 0; i < localPrompts.length; i++) {
        OverlapScores tree = indexer.findMatches(localPrompts[i]);
        OverlapScores model = naive.findMatches(seqPrompts[i]);
        if (!tree.equals(model)) {
          throw new IllegalStateException(
              "prompt " + i + ": tree " + tree + " but naive index " + model);
        }
        for (int d : tree.overlapBlocks().values()) {
          matchedBlocks += d;
        }
      }
      System.out.printf(
          "%n[setup] %s; %d prompts, %.1f blocks each on average, %.2f matched blocks summed over ranks per prompt%n",
          replay.summary(),
          localPrompts.length,
          (double) replay.promptBlocks / localPrompts.length,
          (double) matchedBlocks / localPrompts.length);
    }

    long[] nextLocal() {
      long[] p = localPrompts[cursor];
      cursor = cursor + 1 == localPrompts.length ? 0 : cursor + 1;
      return p;
    }

    long[] nextSeq() {
      long[] p = seqPrompts[cursor];
      cursor = cursor + 1 == seqPrompts.length ? 0 : cursor + 1;
      return p;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      indexer.close();
    }
  }

  @Benchmark
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  public OverlapScores findMatches(MatchState s) {
    return s.indexer.findMatches(s.nextLocal());
  }

  @Benchmark
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  public OverlapScores baselineNaiveFindMatches(MatchState s) {
    return s.naive.findMatches(s.nextSeq());
  }

  // ---- apply ----------------------------------------------------------------------------------

  @State(Scope.Thread)
  public static class ApplyState {
    @Param({"1", "2"})
    public int shards;

    @Param({"8", "64"})
    public int workers;

    Replay replay;
    KvIndexer indexer;

    @Setup(Level.Trial)
    public void setUpTrial() {
      replay = Replay.of(Trace.load(), workers, TRACE_BLOCK_TOKENS);
      System.out.printf("%n[setup] %s%n", replay.summary());
    }

    @Setup(Level.Invocation)
    public void setUpInvocation() {
      indexer = KvIndexer.create(shards, null);
    }

    @TearDown(Level.Invocation)
    public void tearDownInvocation() {
      requireAllApplied(indexer.stats(), replay.events.size());
      indexer.close();
    }
  }

  @Benchmark
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public Object applyReplay(ApplyState s) {
    KvIndexer indexer = s.indexer;
    for (RouterEvent e : s.replay.events) {
      indexer.apply(e.worker(), e.event());
    }
    return indexer.flush().toCompletableFuture().join();
  }

  // ---- helpers --------------------------------------------------------------------------------

  static void requireAllApplied(KvIndexerStats stats, long events) {
    if (stats.applied() != events || stats.rejected() != 0 || stats.pending() != 0) {
      throw new IllegalStateException("expected " + events + " events applied, got " + stats);
    }
  }

  /** The trace's requests as hash ids, complete 512-token blocks only. */
  static final class Trace {
    static Path path() {
      String env = System.getenv("KVROUTER_TRACE");
      return Path.of(env != null ? env : "../shared/traces/mooncake_synthetic_trace.jsonl");
    }

    static List<long[]> load() {
      Path path = path();
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
  }

  /** The replay's events, the ranks' final state, and every request as a prompt. */
  static final class Replay {
    final WorkerRank[] ranks;
    final List<RouterEvent> events = new ArrayList<>();
    final List<Set<Long>> held = new ArrayList<>();
    final long[][] localPrompts;
    final long[][] seqPrompts;
    final int blockSize;
    long promptBlocks;
    long storedEvents;
    long storedBlocks;
    long removedEvents;
    long removedBlocks;

    private Replay(WorkerRank[] ranks, int prompts, int blockSize) {
      this.ranks = ranks;
      this.localPrompts = new long[prompts][];
      this.seqPrompts = new long[prompts][];
      this.blockSize = blockSize;
    }

    static Replay of(List<long[]> requests, int workers, int blockSize) {
      if (TRACE_BLOCK_TOKENS % blockSize != 0) {
        throw new IllegalArgumentException("block size must divide 512: " + blockSize);
      }
      int perId = TRACE_BLOCK_TOKENS / blockSize;
      WorkerRank[] ranks = new WorkerRank[workers];
      MockEngine[] engines = new MockEngine[workers];
      for (int w = 0; w < workers; w++) {
        ranks[w] = WorkerRank.of("worker-" + w);
        engines[w] = new MockEngine(ENGINE_CAPACITY_TOKENS / blockSize);
      }
      Replay replay = new Replay(ranks, requests.size(), blockSize);
      SplittableRandom random = new SplittableRandom(42);
      long[] pair = new long[2];
      for (int r = 0; r < requests.size(); r++) {
        long[] ids = requests.get(r);
        long[] local = new long[ids.length * perId];
        for (int i = 0; i < local.length; i++) {
          pair[0] = ids[i / perId];
          pair[1] = i % perId;
          local[i] = XX3.hashLongs(pair);
        }
        long[] seq = BlockHasher.chain(local);
        replay.localPrompts[r] = local;
        replay.seqPrompts[r] = seq;
        replay.promptBlocks += local.length;
        int w = random.nextInt(workers);
        engines[w].serve(ranks[w], local, seq, replay);
      }
      for (MockEngine e : engines) {
        replay.held.add(new HashSet<>(e.lru.keySet()));
      }
      return replay;
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

    void serve(WorkerRank rank, long[] local, long[] seq, Replay out) {
      int n = seq.length;
      if (n > capacity) {
        throw new IllegalArgumentException("request of " + n + " blocks exceeds capacity " + capacity);
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

  /** Per rank, the set of block (sequence) hashes it holds; a prompt walks each set from block 0. */
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
}
