package io.kvrouter.routing.schedule;

import io.kvrouter.protocol.OverlapScores;
import io.kvrouter.protocol.WorkerRank;
import java.util.HashMap;
import java.util.Map;

/** Small builders for the schedule tests. */
final class Fixtures {

  static final WorkerRank W1 = WorkerRank.of("w1");
  static final WorkerRank W2 = WorkerRank.of("w2");
  static final WorkerRank W3 = WorkerRank.of("w3");

  private Fixtures() {}

  /** Hashes {@code from, from + 1, ..., from + count - 1}. */
  static long[] blocks(long from, int count) {
    long[] hashes = new long[count];
    for (int i = 0; i < count; i++) {
      hashes[i] = from + i;
    }
    return hashes;
  }

  /** Overlap scores built from alternating (rank, overlap blocks, cached blocks) triples. */
  static OverlapScores overlaps(Object... rankOverlapCached) {
    Map<WorkerRank, Integer> overlap = new HashMap<>();
    Map<WorkerRank, Long> cached = new HashMap<>();
    for (int i = 0; i < rankOverlapCached.length; i += 3) {
      WorkerRank rank = (WorkerRank) rankOverlapCached[i];
      int blocks = (Integer) rankOverlapCached[i + 1];
      if (blocks > 0) {
        overlap.put(rank, blocks);
      }
      cached.put(rank, ((Number) rankOverlapCached[i + 2]).longValue());
    }
    return new OverlapScores(overlap, cached);
  }
}
