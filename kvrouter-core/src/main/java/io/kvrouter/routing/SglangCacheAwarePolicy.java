package io.kvrouter.routing;

import io.kvrouter.protocol.WorkerRank;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * SGLang router's {@code cache_aware} policy ({@code reference/vllm-events-and-peers.md} §3) over
 * token blocks instead of characters, with the defaults of its Python launcher:
 *
 * <ol>
 *   <li>If the ranks are imbalanced, {@code max − min > balance_abs_threshold} (64) and {@code max
 *       > balance_rel_threshold · min} (1.5) in requests in flight, the least loaded rank takes the
 *       request.
 *   <li>Otherwise the prompt is matched against one approximate prefix tree shared by all ranks:
 *       each rank's match is the number of leading prompt blocks routed to it before. If the best
 *       match covers more than {@code cache_threshold} (0.3) of the prompt's tokens, the rank with
 *       that match takes it (the least loaded among equals); else the least loaded rank does.
 *   <li>Either way the prompt's blocks are recorded for the chosen rank. Every {@code
 *       eviction_interval_secs} (120 s) each rank's entries are pruned, least recently used first,
 *       to {@code max_tree_size} (2^26, counted here in tokens).
 * </ol>
 *
 * Like SGLang's, the tree never hears from the engines: it believes a rank caches every prompt it
 * was sent until pruning says otherwise.
 */
final class SglangCacheAwarePolicy implements RankPolicy {
  static final double CACHE_THRESHOLD = 0.3;
  static final int BALANCE_ABS_THRESHOLD = 64;
  static final double BALANCE_REL_THRESHOLD = 1.5;
  static final long EVICTION_INTERVAL_NANOS = 120_000_000_000L;
  static final long MAX_TREE_TOKENS = 1L << 26;

  private final InFlight inFlight;
  private final int blockSize;
  private final LongSupplier nanoClock;
  private final long maxTreeBlocks;

  /** Per rank: sequence hash of each prompt block routed to it, least recently used first. */
  private final List<LinkedHashMap<Long, Boolean>> trees;

  private long nextEviction;

  SglangCacheAwarePolicy(List<WorkerRank> ranks, int blockSize, LongSupplier nanoClock) {
    this.inFlight = new InFlight(ranks);
    this.blockSize = blockSize;
    this.nanoClock = nanoClock;
    this.maxTreeBlocks = Math.max(1, MAX_TREE_TOKENS / blockSize);
    this.trees =
        ranks.stream().map(rank -> new LinkedHashMap<Long, Boolean>(16, 0.75f, true)).toList();
    this.nextEviction = nanoClock.getAsLong() + EVICTION_INTERVAL_NANOS;
  }

  @Override
  public String name() {
    return "sglang";
  }

  @Override
  public WorkerRank route(HashedPrompt prompt) {
    evictIfDue();
    int chosen = imbalanced() ? inFlight.leastLoaded() : byCache(prompt);
    LinkedHashMap<Long, Boolean> tree = trees.get(chosen);
    for (long block : prompt.sequenceHashes()) {
      tree.put(block, Boolean.TRUE);
    }
    return inFlight.book(prompt.requestId(), chosen);
  }

  @Override
  public void finished(String requestId) {
    inFlight.finished(requestId);
  }

  private boolean imbalanced() {
    int max = Integer.MIN_VALUE;
    int min = Integer.MAX_VALUE;
    for (int i = 0; i < trees.size(); i++) {
      max = Math.max(max, inFlight.count(i));
      min = Math.min(min, inFlight.count(i));
    }
    return max - min > BALANCE_ABS_THRESHOLD && max > BALANCE_REL_THRESHOLD * min;
  }

  private int byCache(HashedPrompt prompt) {
    long[] blocks = prompt.sequenceHashes();
    int best = -1;
    int bestMatch = 0;
    for (int rank = 0; rank < trees.size(); rank++) {
      Map<Long, Boolean> tree = trees.get(rank);
      int match = 0;
      while (match < blocks.length && tree.containsKey(blocks[match])) {
        match++;
      }
      if (match > bestMatch
          || (match == bestMatch && best >= 0 && inFlight.count(rank) < inFlight.count(best))) {
        best = rank;
        bestMatch = match;
      }
    }
    double matchRate =
        prompt.inputTokens() == 0 ? 0 : (double) bestMatch * blockSize / prompt.inputTokens();
    return best >= 0 && matchRate > CACHE_THRESHOLD ? best : inFlight.leastLoaded();
  }

  private void evictIfDue() {
    long now = nanoClock.getAsLong();
    if (now < nextEviction) {
      return;
    }
    nextEviction = now + EVICTION_INTERVAL_NANOS;
    for (LinkedHashMap<Long, Boolean> tree : trees) {
      var oldest = tree.keySet().iterator();
      while (tree.size() > maxTreeBlocks) {
        oldest.next();
        oldest.remove();
      }
    }
  }
}
