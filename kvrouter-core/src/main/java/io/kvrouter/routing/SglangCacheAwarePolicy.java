package io.kvrouter.routing;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.RouterMode;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * SGLang router's {@code cache_aware} policy (sgl-project/sglang, {@code
 * sgl-router/src/policies/cache_aware.rs}) over token blocks instead of characters, with the
 * defaults of its Python launcher:
 *
 * <ol>
 *   <li>If the candidates are imbalanced, {@code max − min > balance_abs_threshold} (64) and {@code
 *       max > balance_rel_threshold · min} (1.5) in requests in flight, the least loaded one takes
 *       the request.
 *   <li>Otherwise the prompt is matched against one approximate prefix tree shared by all workers:
 *       each worker's match is the number of leading prompt blocks routed to it before. If the best
 *       match covers more than {@code cache_threshold} (0.3) of the prompt's tokens, the worker
 *       with that match takes it (the least loaded among equals); else the least loaded one does.
 *   <li>Either way the prompt's blocks are recorded for the chosen worker when the request is
 *       booked. Every {@code eviction_interval_secs} (120 s) each worker's entries are pruned,
 *       least recently used first, to {@code max_tree_size} (2^26, counted here in tokens).
 * </ol>
 *
 * Like SGLang's, the tree never hears from the engines: it believes a worker caches every prompt it
 * was sent until pruning says otherwise, or until the worker fails.
 *
 * <p>Threads: the tree is read and written in short {@code synchronized} sections (a choice, a
 * booking's insert, a failed worker's removal); the prompt is hashed before them, and the requests
 * in flight are counted without a lock.
 */
final class SglangCacheAwarePolicy implements RoutingPolicy {
  static final double CACHE_THRESHOLD = 0.3;
  static final int BALANCE_ABS_THRESHOLD = 64;
  static final double BALANCE_REL_THRESHOLD = 1.5;
  static final long EVICTION_INTERVAL_NANOS = 120_000_000_000L;
  static final long MAX_TREE_TOKENS = 1L << 26;

  private final InFlight inFlight = new InFlight();
  private final int blockSize;
  private final Ticker ticker;
  private final long maxTreeBlocks;

  /** Per worker: sequence hash of each prompt block routed to it, least recently used first. */
  private final Map<String, LinkedHashMap<Long, Boolean>> trees = new HashMap<>();

  private long nextEviction;

  SglangCacheAwarePolicy(int blockSize, Ticker ticker) {
    this.blockSize = blockSize;
    this.ticker = ticker;
    this.maxTreeBlocks = Math.max(1, MAX_TREE_TOKENS / blockSize);
    this.nextEviction = ticker.nanos() + EVICTION_INTERVAL_NANOS;
  }

  @Override
  public RouterMode mode() {
    return RouterMode.SGLANG;
  }

  @Override
  public <W extends RouteCandidate> Choice<W> choose(Prompt prompt, List<W> candidates) {
    long[] blocks = prompt.sequenceHashes();
    synchronized (this) {
      evictIfDue();
      int chosen =
          imbalanced(candidates)
              ? inFlight.leastLoaded(candidates)
              : byCache(prompt.inputTokens(), blocks, candidates);
      return Choice.of(candidates.get(chosen));
    }
  }

  @Override
  public Booking book(String requestId, Prompt prompt, Choice<?> choice) {
    String workerId = choice.worker().workerId();
    long[] blocks = prompt.sequenceHashes();
    synchronized (this) {
      LinkedHashMap<Long, Boolean> tree =
          trees.computeIfAbsent(workerId, id -> new LinkedHashMap<>(16, 0.75f, true));
      for (long block : blocks) {
        tree.put(block, Boolean.TRUE);
      }
    }
    return inFlight.book(workerId);
  }

  @Override
  public synchronized void workerLost(String workerId) {
    trees.remove(workerId);
  }

  /** Its prefix tree and its count of requests in flight go. */
  @Override
  public synchronized void workerLeft(RouteCandidate worker) {
    trees.remove(worker.workerId());
    inFlight.forget(worker.workerId());
  }

  /** Requests booked and not yet released: for tests. */
  int requestsInFlight() {
    return inFlight.total();
  }

  private boolean imbalanced(List<? extends RouteCandidate> candidates) {
    int max = Integer.MIN_VALUE;
    int min = Integer.MAX_VALUE;
    for (RouteCandidate candidate : candidates) {
      int count = inFlight.count(candidate);
      max = Math.max(max, count);
      min = Math.min(min, count);
    }
    return max - min > BALANCE_ABS_THRESHOLD && max > BALANCE_REL_THRESHOLD * min;
  }

  private int byCache(int inputTokens, long[] blocks, List<? extends RouteCandidate> candidates) {
    int best = -1;
    int bestMatch = 0;
    int bestCount = 0;
    for (int i = 0; i < candidates.size(); i++) {
      Map<Long, Boolean> tree = trees.get(candidates.get(i).workerId());
      int match = 0;
      while (tree != null && match < blocks.length && tree.containsKey(blocks[match])) {
        match++;
      }
      int count = inFlight.count(candidates.get(i));
      if (match > bestMatch || (match == bestMatch && best >= 0 && count < bestCount)) {
        best = i;
        bestMatch = match;
        bestCount = count;
      }
    }
    double matchRate = inputTokens == 0 ? 0 : (double) bestMatch * blockSize / inputTokens;
    return best >= 0 && matchRate > CACHE_THRESHOLD ? best : inFlight.leastLoaded(candidates);
  }

  private void evictIfDue() {
    long now = ticker.nanos();
    if (now < nextEviction) {
      return;
    }
    nextEviction = now + EVICTION_INTERVAL_NANOS;
    for (LinkedHashMap<Long, Boolean> tree : trees.values()) {
      var oldest = tree.keySet().iterator();
      while (tree.size() > maxTreeBlocks) {
        oldest.next();
        oldest.remove();
      }
    }
  }
}
