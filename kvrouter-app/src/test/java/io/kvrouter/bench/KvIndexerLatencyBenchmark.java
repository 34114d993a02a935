package io.kvrouter.bench;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.kvrouter.protocol.OverlapScores;
import io.kvrouter.routing.index.KvIndexer;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;
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
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * {@link KvIndexer#findMatches} latency (p50, p99) against an index of about a million (block,
 * worker rank) entries, with a naive index side by side, and the index's heap bytes per entry.
 *
 * <h2>The index (built in the trial setup, outside measurement)</h2>
 *
 * The Mooncake synthetic trace at a block size of 16 tokens (vLLM's default: each 512-token hash id
 * becomes 32 blocks) replayed by {@link MooncakeReplay#untilFull}: every request to a random rank
 * (seed 42), each rank a mock engine of {@code 2^20 / workers} blocks with LRU eviction (65,536
 * blocks for 16 ranks, which is Dynamo's mocker capacity of 16,384 × 64 tokens; 8,192 for 128
 * ranks), whole passes over the trace until every engine is full. The index built from those events
 * holds exactly 2^20 = 1,048,576 (block, rank) entries; the setup checks that. A request longer
 * than a rank's capacity is skipped (with 128 ranks, the 10 requests over 131,072 tokens).
 *
 * <h2>Prompts</h2>
 *
 * For {@code promptBlocks} = L, every trace request with at least L complete blocks, cut to its
 * first L blocks, that matches at least one block in the index (a miss costs one lookup at the root
 * and would only flatter the median), in trace order, one per call, cycling. They are the requests
 * that built the index, so they walk its real shared prefixes; the setup prints how many it kept
 * and how far they match (the {@code [prompts]} line), and checks that the tree and the naive index
 * score every candidate alike.
 *
 * <h2>Benchmarks</h2>
 *
 * <ul>
 *   <li>{@code findMatchesLatency}: {@link KvIndexer#findMatches} with the prompt's local hashes.
 *   <li>{@code baselineNaiveLatency}: the naive index of the same state ({@link
 *       MooncakeReplay.NaiveIndex}, per rank a {@code HashSet<Long>} of its block hashes, walked
 *       from block 0 in every rank's set), handed the prompt's block hashes precomputed.
 * </ul>
 *
 * Mode {@code SampleTime}: JMH times sampled single calls; the report gives their percentiles
 * ({@code p0.50}, {@code p0.99}).
 *
 * <h2>Heap per entry (the {@code [heap]} line)</h2>
 *
 * In every fork of {@code findMatchesLatency} (a fresh JVM), after the replay's events are built
 * and while they stay reachable: {@code System.gc()} until the used heap moves by less than 64 KiB
 * between two calls, used heap read from the {@link MemoryMXBean}; the index built and flushed; the
 * same again. (after − before) / entries is the index's cost per (block, rank) entry as the
 * collector holds it. A class histogram ({@code GC.class_histogram}, live objects) before and after
 * gives the same difference as the sum of object sizes, by class ({@code [heap-class]} lines).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class KvIndexerLatencyBenchmark {

  /** Tokens per block: vLLM's default. */
  static final int BLOCK_SIZE = 16;

  /** (block, rank) entries the index is built to. */
  static final int TARGET_ENTRIES = 1 << 20;

  static final int MAX_PASSES = 8;

  @State(Scope.Thread)
  public static class LatencyState {
    @Param({"16", "128"})
    public int workers;

    @Param({"32", "128", "512"})
    public int promptBlocks;

    KvIndexer indexer;
    MooncakeReplay.NaiveIndex naive;
    long[][] localPrompts;
    long[][] seqPrompts;
    final MooncakeReplay.Cycle cycle = new MooncakeReplay.Cycle();
    String benchmark;
    double loadAtStart;

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) {
      MooncakeReplay replay =
          MooncakeReplay.untilFull(
              MooncakeReplay.loadTrace(),
              workers,
              BLOCK_SIZE,
              TARGET_ENTRIES / workers,
              MAX_PASSES);
      List<long[]> local = new ArrayList<>();
      List<long[]> seq = new ArrayList<>();
      for (int r = 0; r < replay.localPrompts.length; r++) {
        if (replay.localPrompts[r].length >= promptBlocks) {
          local.add(Arrays.copyOf(replay.localPrompts[r], promptBlocks));
          seq.add(Arrays.copyOf(replay.seqPrompts[r], promptBlocks));
        }
      }
      localPrompts = local.toArray(new long[0][]);
      seqPrompts = seq.toArray(new long[0][]);

      boolean measureHeap = params.getBenchmark().endsWith(".findMatchesLatency");
      Map<String, long[]> histogramBefore = measureHeap ? Heap.classHistogram() : null;
      long heapBefore = measureHeap ? Heap.settledUsed() : 0;
      indexer = replay.buildIndexer();
      long heapAfter = measureHeap ? Heap.settledUsed() : 0;
      Map<String, long[]> histogramAfter = measureHeap ? Heap.classHistogram() : null;
      Reference.reachabilityFence(replay); // the workload stays out of the difference

      long entries = 0;
      for (long n : indexer.cachedBlocks().values()) {
        entries += n;
      }
      if (entries != TARGET_ENTRIES || replay.heldEntries() != TARGET_ENTRIES) {
        throw new IllegalStateException(
            "expected "
                + TARGET_ENTRIES
                + " entries: index "
                + entries
                + ", engines "
                + replay.heldEntries());
      }
      System.out.printf(
          "%n[latency-setup] %d ranks: %s; %d passes, %d requests skipped as longer than %d blocks; %d entries%n",
          workers,
          replay.summary(),
          replay.passes,
          replay.skippedRequests,
          replay.capacityBlocks,
          entries);
      if (measureHeap) {
        Heap.report(workers, entries, heapBefore, heapAfter, histogramBefore, histogramAfter);
      }

      naive = replay.naiveIndex();
      OverlapScores[] scores = MooncakeReplay.scoreAlike(indexer, naive, localPrompts, seqPrompts);
      int candidates = scores.length;
      int kept = 0;
      for (int i = 0; i < candidates; i++) {
        if (!scores[i].overlapBlocks().isEmpty()) {
          localPrompts[kept] = localPrompts[i];
          seqPrompts[kept] = seqPrompts[i];
          scores[kept++] = scores[i];
        }
      }
      localPrompts = Arrays.copyOf(localPrompts, kept);
      seqPrompts = Arrays.copyOf(seqPrompts, kept);
      printOverlap(candidates, Arrays.copyOf(scores, kept));
      benchmark = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
      loadAtStart = loadAverage();
    }

    /** What the kept prompts (those matching at least one block) see in the index. */
    private void printOverlap(int candidates, OverlapScores[] scores) {
      long longest = 0;
      int full = 0;
      long ranksAny = 0;
      long ranksFull = 0;
      for (OverlapScores s : scores) {
        int best = 0;
        for (int d : s.overlapBlocks().values()) {
          best = Math.max(best, d);
          if (d == promptBlocks) {
            ranksFull++;
          }
        }
        longest += best;
        full += best == promptBlocks ? 1 : 0;
        ranksAny += s.overlapBlocks().size();
      }
      double n = scores.length;
      System.out.printf(
          "[prompts] %d ranks, %d blocks: %d prompts of %d requests with >= %d blocks match >= 1 block;"
              + " longest match %.1f blocks on average (%.1f%%), whole prompt on some rank %.1f%%;"
              + " ranks matching >= 1 block %.2f, the whole prompt %.2f on average%n",
          workers,
          promptBlocks,
          scores.length,
          candidates,
          promptBlocks,
          longest / n,
          100 * longest / n / promptBlocks,
          100 * full / n,
          ranksAny / n,
          ranksFull / n);
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
      // the machine is shared: how busy it was while this fork measured
      System.out.printf(
          "%n[load] %s %d ranks, %d blocks: 1-minute load average %.2f at the start, %.2f at the end%n",
          benchmark, workers, promptBlocks, loadAtStart, loadAverage());
    }

    private static double loadAverage() {
      return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
  }

  @Benchmark
  public OverlapScores findMatchesLatency(LatencyState s) {
    return s.indexer.findMatches(s.nextLocal());
  }

  @Benchmark
  public OverlapScores baselineNaiveLatency(LatencyState s) {
    return s.naive.findMatches(s.nextSeq());
  }

  /** Used heap after full collections, and live objects by class. */
  static final class Heap {
    private static final long STABLE_BYTES = 64 * 1024;
    private static final Pattern HISTOGRAM_ROW =
        Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)", Pattern.MULTILINE);

    private Heap() {}

    /** {@code System.gc()} until two readings of the used heap differ by under 64 KiB. */
    static long settledUsed() {
      MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
      long previous = -1;
      for (int i = 0; i < 20; i++) {
        System.gc();
        long used = memory.getHeapMemoryUsage().getUsed();
        if (previous >= 0 && Math.abs(used - previous) < STABLE_BYTES) {
          return used;
        }
        previous = used;
      }
      throw new IllegalStateException("used heap did not settle after 20 collections");
    }

    /**
     * Live instances and bytes per class ({@code jcmd <pid> GC.class_histogram}, a full GC first).
     */
    static Map<String, long[]> classHistogram() {
      try {
        String text =
            (String)
                ManagementFactory.getPlatformMBeanServer()
                    .invoke(
                        new ObjectName("com.sun.management:type=DiagnosticCommand"),
                        "gcClassHistogram",
                        new Object[] {new String[0]},
                        new String[] {String[].class.getName()});
        Map<String, long[]> rows = new HashMap<>();
        Matcher m = HISTOGRAM_ROW.matcher(text);
        while (m.find()) {
          rows.put(m.group(3), new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))});
        }
        return rows;
      } catch (Exception e) {
        throw new IllegalStateException("cannot take a class histogram", e);
      }
    }

    static void report(
        int workers,
        long entries,
        long before,
        long after,
        Map<String, long[]> histogramBefore,
        Map<String, long[]> histogramAfter) {
      List<String> gcs = new ArrayList<>();
      for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
        gcs.add(gc.getName());
      }
      String region =
          ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
              .getVMOption("G1HeapRegionSize")
              .getValue();
      List<Map.Entry<String, long[]>> grown = new ArrayList<>();
      long objectBytes = 0;
      for (Map.Entry<String, long[]> e : histogramAfter.entrySet()) {
        long[] was = histogramBefore.getOrDefault(e.getKey(), new long[2]);
        long[] delta = {e.getValue()[0] - was[0], e.getValue()[1] - was[1]};
        objectBytes += delta[1];
        grown.add(Map.entry(e.getKey(), delta));
      }
      for (Map.Entry<String, long[]> e : histogramBefore.entrySet()) {
        if (!histogramAfter.containsKey(e.getKey())) {
          objectBytes -= e.getValue()[1];
        }
      }
      System.out.printf(
          "[heap] %d ranks: %d entries; used heap %d -> %d bytes; %.1f bytes per entry"
              + " (class histogram: %d bytes, %.1f per entry); GC %s, G1 region %s bytes%n",
          workers,
          entries,
          before,
          after,
          (double) (after - before) / entries,
          objectBytes,
          (double) objectBytes / entries,
          String.join(" + ", gcs),
          region);
      grown.sort((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]));
      for (Map.Entry<String, long[]> e : grown.subList(0, Math.min(8, grown.size()))) {
        System.out.printf(
            "[heap-class] %d ranks: %s %d instances %d bytes %.1f per entry%n",
            workers,
            e.getKey(),
            e.getValue()[0],
            e.getValue()[1],
            (double) e.getValue()[1] / entries);
      }
    }
  }
}
