package io.kvrouter.bench;

import io.kvrouter.protocol.hash.BlockHasher;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import net.openhft.hashing.LongHashFunction;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Time to hash one prompt into its block hashes with {@link BlockHasher}, against the raw hash
 * function doing the same work in the same run (JMH runs them side by side in one fork each).
 *
 * <ul>
 *   <li>{@code localHashes}: {@link BlockHasher#localHashes(int[])}, a new {@code long[]} per
 *       prompt, as the router calls it.
 *   <li>{@code baselineXx3HashInts}: {@code LongHashFunction.xx3(1337).hashInts(tokens, off, bs)}
 *       per block into a preallocated array: the floor for {@code localHashes}.
 *   <li>{@code sequenceHashes}: {@link BlockHasher#sequenceHashes(int[])} (local hashes, then the
 *       chain).
 *   <li>{@code baselineXx3Chain}: the same by hand: {@code hashInts} per block, then {@code
 *       xx3(1337).hashLongs({prev, local})} per block, into preallocated arrays.
 * </ul>
 *
 * Tokens are random ids below 151,643 (Qwen3's vocabulary), fixed per trial. Tokens per second is
 * {@code tokens / (time per prompt)}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class BlockHasherBenchmark {

  @Param({"1024", "8192", "32768"})
  public int tokens;

  @Param({"16", "64"})
  public int blockSize;

  private static final LongHashFunction XX3 = LongHashFunction.xx3(BlockHasher.DEFAULT_SEED);

  private int[] prompt;
  private BlockHasher hasher;
  private long[] localOut;
  private long[] seqOut;
  private final long[] pair = new long[2];

  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(42);
    prompt = new int[tokens];
    for (int i = 0; i < tokens; i++) {
      prompt[i] = random.nextInt(151_643);
    }
    hasher = BlockHasher.of(blockSize);
    localOut = new long[tokens / blockSize];
    seqOut = new long[tokens / blockSize];
    // the baselines must compute exactly what the hasher computes
    check(java.util.Arrays.equals(baselineXx3HashInts(), hasher.localHashes(prompt)), "local");
    check(java.util.Arrays.equals(baselineXx3Chain(), hasher.sequenceHashes(prompt)), "sequence");
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException("baseline and BlockHasher disagree on " + what + " hashes");
    }
  }

  @Benchmark
  public long[] localHashes() {
    return hasher.localHashes(prompt);
  }

  @Benchmark
  public long[] baselineXx3HashInts() {
    int bs = blockSize;
    long[] out = localOut;
    int[] t = prompt;
    for (int b = 0; b < out.length; b++) {
      out[b] = XX3.hashInts(t, b * bs, bs);
    }
    return out;
  }

  @Benchmark
  public long[] sequenceHashes() {
    return hasher.sequenceHashes(prompt);
  }

  @Benchmark
  public long[] baselineXx3Chain() {
    int bs = blockSize;
    long[] out = seqOut;
    int[] t = prompt;
    long[] p = pair;
    long prev = 0;
    for (int b = 0; b < out.length; b++) {
      long local = XX3.hashInts(t, b * bs, bs);
      if (b == 0) {
        prev = local;
      } else {
        p[0] = prev;
        p[1] = local;
        prev = XX3.hashLongs(p);
      }
      out[b] = prev;
    }
    return out;
  }
}
