package io.kvrouter.worker.engine;

import io.kvrouter.common.SplitMix;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

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
 * Not thread-safe: a caller drives one engine from one thread at a time.
 */
public final class EngineCore {
  private final EngineSettings settings;
  private final EngineListener listener;
  private final BlockPool pool;
  private final Deque<Sequence> waiting = new ArrayDeque<>();
  private final List<Sequence> running = new ArrayList<>();
  private Step current;
  private long serial;
  private long promptTokens;
  private long cachedPromptTokens;
  private long preemptions;

  public EngineCore(EngineSettings settings, EngineListener listener) {
    this.settings = settings;
    this.listener = listener;
    this.pool = new BlockPool(settings.numGpuBlocks(), listener::onKvEvent);
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
    waiting.addLast(new Sequence(request, serial++));
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
      if (!holdSlotsFor(seq, seq.computed + 1)) {
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
      seq.computed += w.tokens;
      commitFullBlocks(seq);
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
    return pool.usedSlots();
  }

  /** KV blocks held by running requests. */
  public int activeBlocks() {
    return pool.activeSlots();
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
    int needed = (int) (settings.blocksFor(tokens) - seq.slots);
    while (needed > 0 && !pool.reserve(needed)) {
      Sequence victim = running.get(running.size() - 1);
      preempt(victim);
      if (victim == seq) {
        return false;
      }
    }
    seq.slots += Math.max(0, needed);
    return true;
  }

  private boolean admitNext() {
    Sequence seq = waiting.peekFirst();
    if (seq == null) {
      return false;
    }
    int target = seq.prefillTarget();
    long[] sequence = seq.hashes(target / settings.blockSize());
    int hits = pool.cachedPrefix(sequence, (target - 1) / settings.blockSize());
    int newSlots = (int) (settings.blocksFor(target) - hits);
    int reactivated = 0;
    for (int i = 0; i < hits; i++) {
      reactivated += pool.isInactive(sequence[i]) ? 1 : 0;
    }
    if (pool.activeSlots() + reactivated + newSlots > settings.admissionLimit()
        || pool.availableSlots() - reactivated < newSlots) {
      return false;
    }
    for (int i = 0; i < hits; i++) {
      pool.acquire(sequence[i]);
    }
    if (!pool.reserve(newSlots)) {
      throw new IllegalStateException("slots counted free could not be reserved");
    }
    waiting.pollFirst();
    seq.slots = hits + newSlots;
    seq.committed = hits;
    seq.computed = hits * settings.blockSize();
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
    int full = seq.computed / settings.blockSize();
    if (full > seq.committed) {
      long[] sequence = seq.hashes(full);
      pool.commit(sequence, seq.localHashes(full), seq.committed, full);
      seq.committed = full;
    }
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
    long[] sequence = seq.hashes(seq.committed);
    for (int i = seq.committed - 1; i >= 0; i--) {
      pool.release(sequence[i]);
    }
    pool.unreserve(seq.slots - seq.committed);
    seq.slots = 0;
    seq.committed = 0;
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
  private final class Sequence {
    final EngineRequest request;
    final long serial;

    /** Tokens generated so far. */
    int generated;

    /** Tokens whose KV is computed, from the start of the sequence. */
    int computed;

    /** Slots held: committed blocks first, then reserved ones. */
    int slots;

    /** Leading blocks cached and referenced. */
    int committed;

    boolean running;
    boolean admittedBefore;

    /** Preempted after generating: its next prefill recomputes its output too. */
    boolean recomputing;

    private long[] sequenceHashes;
    private long[] localHashes;

    Sequence(EngineRequest request, long serial) {
      this.request = request;
      this.serial = serial;
      this.sequenceHashes = request.sequenceHashes();
      this.localHashes = request.localHashes();
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

    /** Sequence hashes of the first {@code blocks} blocks (output blocks get unique ones). */
    long[] hashes(int blocks) {
      extendTo(blocks);
      return sequenceHashes;
    }

    long[] localHashes(int blocks) {
      extendTo(blocks);
      return localHashes;
    }

    /**
     * Blocks past the prompt's hold generated tokens no other request shares: their hashes are
     * drawn from the engine-wide serial of the request.
     */
    private void extendTo(int blocks) {
      int have = sequenceHashes.length;
      if (blocks <= have) {
        return;
      }
      int length = Math.max(blocks, have * 2);
      sequenceHashes = Arrays.copyOf(sequenceHashes, length);
      localHashes = Arrays.copyOf(localHashes, length);
      for (int i = have; i < length; i++) {
        localHashes[i] = SplitMix.mix(serial * 0x9E3779B97F4A7C15L + i + 1);
        sequenceHashes[i] = SplitMix.mix(localHashes[i] ^ 0xD1B54A32D192ED03L);
      }
    }
  }
}
