package io.kvrouter.worker.engine;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.worker.kv.BlockPool;
import io.kvrouter.worker.kv.DynamoEvents;
import io.kvrouter.worker.kv.KvAllocation;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Consumer;

/**
 * One simulated engine's scheduler, stepped by its caller: {@link #startStep()} decides what the
 * next iteration computes and how long it takes, {@link #completeStep} applies it once that time
 * has passed (in virtual time in the simulator, on a timer in a live worker). Like vLLM's v1
 * scheduler and Dynamo's mocker:
 *
 * <ol>
 *   <li>A step has a budget of {@code max_num_batched_tokens}. Running requests come first, oldest
 *       first: one decoding takes one token; one still prefilling takes the next chunk of its
 *       prompt that fits.
 *   <li>Then waiting requests are admitted in arrival order (FCFS: the first that does not fit
 *       blocks those behind it) while fewer than {@code max_num_seqs} run and budget is left. A
 *       request's cached prompt prefix (whole blocks, always leaving one token to compute) is
 *       reused; slots for the rest of its prompt are reserved, evicting inactive blocks, and only
 *       if the blocks in use stay within the watermark.
 *   <li>A decoding request whose next token starts a new block needs a free slot. If none can be
 *       had, the most recently admitted running request is preempted (LIFO): its blocks are
 *       released, still cached, and it goes back to the head of the queue to recompute its prompt
 *       and output so far, mostly from cache.
 *   <li>When the step completes, each prefill chunk's full blocks are cached ({@code Stored}); a
 *       request whose prefill ended emits its first token, each decoding one its next token; a
 *       request ends at {@code max_tokens} or when the listener stops it, releasing its blocks,
 *       tail first so a prefix outlives its branches.
 * </ol>
 *
 * <p>The cache is a {@link BlockPool}, named by the requests' {@link EngineRequest#blocks}: the
 * engine's own, reporting Dynamo KV events (the simulator's), or one it shares with a live worker,
 * whose listeners publish it.
 *
 * <p>Not thread-safe: a caller drives one engine from one thread at a time (others may read its
 * pool).
 */
public final class EngineCore {
  private final EngineSettings settings;
  private final EngineListener listener;
  private final BlockPool pool;
  private final Deque<Sequence> waiting = new ArrayDeque<>();
  private final List<Sequence> running = new ArrayList<>();
  private Step current;
  private long promptTokens;
  private long cachedPromptTokens;
  private long preemptions;

  /**
   * An engine with a cache of its own, which reports every change to {@code kvEvents} as a Dynamo
   * KV event, as it happens; its requests' blocks must be named by Dynamo's hashes.
   */
  public EngineCore(
      EngineSettings settings, EngineListener listener, Consumer<KvCacheEvent> kvEvents) {
    this(settings, listener, poolReportingTo(settings, kvEvents));
  }

  /**
   * An engine whose cache is {@code pool}, of the settings' capacity and block size.
   *
   * @throws IllegalArgumentException if the pool's capacity or block size is not the settings'
   */
  public EngineCore(EngineSettings settings, EngineListener listener, BlockPool pool) {
    if (pool.capacity() != settings.numGpuBlocks() || pool.blockSize() != settings.blockSize()) {
      throw new IllegalArgumentException(
          "a pool of "
              + pool.capacity()
              + " blocks of "
              + pool.blockSize()
              + " tokens for an engine of "
              + settings.numGpuBlocks()
              + " blocks of "
              + settings.blockSize());
    }
    this.settings = settings;
    this.listener = listener;
    this.pool = pool;
  }

  private static BlockPool poolReportingTo(
      EngineSettings settings, Consumer<KvCacheEvent> kvEvents) {
    BlockPool pool = new BlockPool(settings.numGpuBlocks(), settings.blockSize());
    pool.subscribe(new DynamoEvents(kvEvents));
    return pool;
  }

  public EngineSettings settings() {
    return settings;
  }

  /**
   * Queues a request.
   *
   * @throws RequestTooLargeException if its prompt and output could never fit in the cache
   */
  public void submit(EngineRequest request) {
    if (!settings.fits(request.promptTokens(), request.maxOutputTokens())) {
      long blocks = settings.blocksFor((long) request.promptTokens() + request.maxOutputTokens());
      throw new RequestTooLargeException(
          "request "
              + request.id()
              + " needs "
              + blocks
              + " KV blocks, more than the "
              + settings.admissionLimit()
              + " this engine admits");
    }
    waiting.addLast(new Sequence(request));
  }

  /** Whether a step is in progress. */
  public boolean stepping() {
    return current != null;
  }

  /** Whether there is anything to run: a running or waiting request. */
  public boolean hasWork() {
    return !running.isEmpty() || !waiting.isEmpty();
  }

  /**
   * Plans the next step; null when there is nothing to compute (no request, or none that fits).
   *
   * @throws IllegalStateException if a step is already in progress
   */
  public Step startStep() {
    if (current != null) {
      throw new IllegalStateException("a step is in progress");
    }
    int budget = settings.maxNumBatchedTokens();
    double usage = usage();
    List<Work> work = new ArrayList<>();
    long preemptionsBefore = preemptions;
    for (int i = 0; i < running.size() && budget > 0; i++) {
      Sequence seq = running.get(i);
      int prefill = seq.pendingPrefill();
      if (prefill > 0) {
        int chunk = Math.min(prefill, budget);
        work.add(new Work(seq, chunk, false));
        budget -= chunk;
        continue;
      }
      // a decode needs another slot only when its token starts a block: the slot of a block it
      // continues is held since its admission or the decode that started that block
      if (seq.computed % settings.blockSize() == 0 && !holdSlotsFor(seq, seq.computed + 1)) {
        break; // seq preempted itself: it was the last running request
      }
      work.add(new Work(seq, 1, true));
      budget -= 1;
    }
    // as in vLLM, a step that had to preempt admits nobody
    boolean preempted = preemptions != preemptionsBefore;
    while (!preempted && budget > 0 && running.size() < settings.maxNumSeqs() && admitNext()) {
      Sequence seq = running.get(running.size() - 1);
      int chunk = Math.min(seq.pendingPrefill(), budget);
      work.add(new Work(seq, chunk, false));
      budget -= chunk;
    }
    if (work.isEmpty()) {
      return null;
    }
    long prefillTokens = 0;
    boolean decodes = false;
    for (Work w : work) {
      if (w.decode) {
        decodes = true;
      } else {
        prefillTokens += w.tokens;
      }
    }
    current =
        new Step(work, settings.timing().stepMillis(prefillTokens, decodes, usage), prefillTokens);
    return current;
  }

  /** Applies the step {@link #startStep} planned: caches blocks, emits tokens, ends requests. */
  public void completeStep(Step step) {
    if (step == null || step != current) {
      throw new IllegalStateException("not the step in progress");
    }
    current = null;
    for (Work w : step.work) {
      Sequence seq = w.seq;
      if (!seq.running) {
        continue; // cancelled during the step
      }
      int fullBefore = seq.computed / settings.blockSize();
      seq.computed += w.tokens;
      if (seq.computed / settings.blockSize() > fullBefore) {
        commitFullBlocks(seq);
      }
      if (seq.pendingPrefill() > 0) {
        continue; // more prompt chunks to go
      }
      seq.recomputing = false;
      int index = seq.generated++;
      boolean stop = listener.onToken(seq.request, index);
      if (stop || seq.generated >= seq.request.maxOutputTokens()) {
        finish(seq);
      }
    }
  }

  /**
   * Ends a request wherever it is, without a {@link EngineListener#onFinished} call: waiting, it
   * leaves the queue; running, its blocks are released. A step in progress that planned work for it
   * skips that work.
   *
   * @return whether the request was known
   */
  public boolean cancel(String requestId) {
    for (Sequence seq : waiting) {
      if (seq.request.id().equals(requestId)) {
        waiting.remove(seq);
        return true;
      }
    }
    for (Sequence seq : running) {
      if (seq.request.id().equals(requestId)) {
        release(seq);
        return true;
      }
    }
    return false;
  }

  /** Requests waiting to be admitted. */
  public int waitingRequests() {
    return waiting.size();
  }

  /** Requests admitted and not yet ended. */
  public int runningRequests() {
    return running.size();
  }

  /** KV blocks reserved or cached: never more than the capacity. */
  public int usedBlocks() {
    return pool.usedBlocks();
  }

  /** KV blocks held by running requests. */
  public int activeBlocks() {
    return pool.activeBlocks();
  }

  /** Prompt tokens of requests admitted for the first time. */
  public long promptTokens() {
    return promptTokens;
  }

  /** Of {@link #promptTokens}, those found in the cache at admission. */
  public long cachedPromptTokens() {
    return cachedPromptTokens;
  }

  public long preemptions() {
    return preemptions;
  }

  /** KV tokens computed for running requests over the cache's capacity in tokens. */
  private double usage() {
    long tokens = 0;
    for (Sequence seq : running) {
      tokens += seq.computed;
    }
    return (double) tokens / ((long) settings.numGpuBlocks() * settings.blockSize());
  }

  /**
   * Makes sure {@code seq} holds slots for {@code tokens} tokens, preempting the most recently
   * admitted running requests (at worst {@code seq} itself, which the caller has not planned yet,
   * nor any request after it) until it does.
   *
   * @return false if {@code seq} itself was preempted
   */
  private boolean holdSlotsFor(Sequence seq, long tokens) {
    int slots = (int) settings.blocksFor(tokens);
    while (!pool.hold(seq.request.id(), slots)) {
      Sequence victim = running.get(running.size() - 1);
      preempt(victim);
      if (victim == seq) {
        return false;
      }
    }
    return true;
  }

  private boolean admitNext() {
    Sequence seq = waiting.peekFirst();
    if (seq == null) {
      return false;
    }
    int target = seq.prefillTarget();
    KvAllocation admitted =
        pool.admit(
            seq.request.id(),
            seq.request.blocks(),
            (target - 1) / settings.blockSize(),
            (int) settings.blocksFor(target),
            settings.admissionLimit());
    if (!admitted.allocated()) {
      return false;
    }
    waiting.pollFirst();
    seq.computed = admitted.cachedBlocks() * settings.blockSize();
    seq.running = true;
    running.add(seq);
    if (!seq.admittedBefore) {
      seq.admittedBefore = true;
      promptTokens += seq.request.promptTokens();
      cachedPromptTokens += Math.min(seq.computed, seq.request.promptTokens());
    }
    return true;
  }

  private void commitFullBlocks(Sequence seq) {
    pool.commit(seq.request.id(), seq.request.blocks(), seq.computed / settings.blockSize());
  }

  private void preempt(Sequence seq) {
    preemptions++;
    release(seq);
    seq.recomputing = seq.generated > 0;
    waiting.addFirst(seq);
  }

  private void finish(Sequence seq) {
    release(seq);
    listener.onFinished(seq.request);
  }

  private void release(Sequence seq) {
    running.remove(seq);
    seq.running = false;
    pool.release(seq.request.id());
    seq.computed = 0;
  }

  /** A planned step: what each request computes, and how long it takes. */
  public static final class Step {
    private final List<Work> work;
    private final double durationMillis;
    private final long prefillTokens;

    private Step(List<Work> work, double durationMillis, long prefillTokens) {
      this.work = work;
      this.durationMillis = durationMillis;
      this.prefillTokens = prefillTokens;
    }

    /** How long the step takes, speed-up applied. */
    public double durationMillis() {
      return durationMillis;
    }

    /** Uncached prompt tokens computed in the step. */
    public long prefillTokens() {
      return prefillTokens;
    }

    /** Requests the step computes for. */
    public int batchSize() {
      return work.size();
    }
  }

  private record Work(Sequence seq, int tokens, boolean decode) {}

  /** A request's progress in the engine. */
  private static final class Sequence {
    final EngineRequest request;

    /** Tokens generated so far. */
    int generated;

    /** Tokens whose KV is computed, from the start of the sequence. */
    int computed;

    boolean running;
    boolean admittedBefore;

    /** Preempted after generating: its next prefill recomputes its output too. */
    boolean recomputing;

    Sequence(EngineRequest request) {
      this.request = request;
    }

    /**
     * Tokens whose KV must exist before the next token: the prompt and all output but the last,
     * whose KV the next decode step computes; after a preemption, every known token, since the
     * recomputation's prefill also stands in for that decode step (as vLLM recomputes).
     */
    int prefillTarget() {
      return request.promptTokens() + (recomputing ? generated : Math.max(0, generated - 1));
    }

    int pendingPrefill() {
      return Math.max(0, prefillTarget() - computed);
    }
  }
}
