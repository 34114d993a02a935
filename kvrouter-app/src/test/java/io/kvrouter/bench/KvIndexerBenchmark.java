package io.kvrouter.bench;

import io.kvrouter.protocol.OverlapScores;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.routing.index.KvIndexer;
import java.util.concurrent.TimeUnit;
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
 * The KV indexer on the Mooncake synthetic trace ({@code traces/} of the repository, or the file
 * named by the environment variable {@code KVROUTER_TRACE}), replayed through a mock engine per
 * worker rank.
 *
 * <h2>The replay (built in the trial setup, outside measurement)</h2>
 *
 * {@link MooncakeReplay#of}: one pass over the trace, every request to a worker rank drawn at
 * random (seed 42), each rank a mock engine with Dynamo's mocker capacity (16,384 blocks of 64
 * tokens, i.e. {@code 1,048,576 / bs} blocks) and LRU eviction, leaves first.
 *
 * <h2>Benchmarks</h2>
 *
 * <ul>
 *   <li>{@code findMatches}: {@link KvIndexer#findMatches} on the tree the whole replay leaves, one
 *       prompt per call, cycling through every request of the trace in order.
 *   <li>{@code baselineNaiveFindMatches}: the same prompts against a naive index of the same final
 *       state: per rank a {@code HashSet<Long>} of the block (sequence) hashes it holds; a prompt
 *       is scored by walking its sequence hashes from block 0 in every rank's set. The baseline is
 *       handed the prompt's sequence hashes precomputed (the tree gets local hashes), which favours
 *       it. The setup checks that both give the same scores for every prompt.
 *   <li>{@code applyReplay}: the whole replay's events applied through a fresh sharded indexer
 *       ({@code KvIndexer.create(shards, null)}), then {@code flush()} waited for: one op is the
 *       whole event stream, from an empty tree. The setup of each op (a new indexer and its
 *       threads) is outside measurement; the teardown checks that every event was applied.
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
public class KvIndexerBenchmark {

  // ---- find matches ---------------------------------------------------------------------------

  @State(Scope.Thread)
  public static class MatchState {
    @Param({"8", "64"})
    public int workers;

    @Param({"512", "64"})
    public int blockSize;

    KvIndexer indexer;
    MooncakeReplay.NaiveIndex naive;
    long[][] localPrompts;
    long[][] seqPrompts;
    final MooncakeReplay.Cycle cycle = new MooncakeReplay.Cycle();

    @Setup(Level.Trial)
    public void setUp() {
      MooncakeReplay replay = MooncakeReplay.of(MooncakeReplay.loadTrace(), workers, blockSize);
      indexer = replay.buildIndexer();
      naive = replay.naiveIndex();
      localPrompts = replay.localPrompts;
      seqPrompts = replay.seqPrompts;
      long matchedBlocks = 0;
      for (OverlapScores tree :
          MooncakeReplay.scoreAlike(indexer, naive, localPrompts, seqPrompts)) {
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
      return cycle.next(localPrompts);
    }

    long[] nextSeq() {
      return cycle.next(seqPrompts);
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

    MooncakeReplay replay;
    KvIndexer indexer;

    @Setup(Level.Trial)
    public void setUpTrial() {
      replay =
          MooncakeReplay.of(MooncakeReplay.loadTrace(), workers, MooncakeReplay.TRACE_BLOCK_TOKENS);
      System.out.printf("%n[setup] %s%n", replay.summary());
    }

    @Setup(Level.Invocation)
    public void setUpInvocation() {
      indexer = KvIndexer.create(shards, null);
    }

    @TearDown(Level.Invocation)
    public void tearDownInvocation() {
      MooncakeReplay.requireAllApplied(indexer.stats(), replay.events.size());
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
}
