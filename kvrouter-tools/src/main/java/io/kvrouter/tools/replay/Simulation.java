package io.kvrouter.tools.replay;

import io.kvrouter.config.KvRouterConfig;
import io.kvrouter.config.RouterMode;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.routing.PolicySettings;
import io.kvrouter.routing.Prompt;
import io.kvrouter.routing.RouteCandidate;
import io.kvrouter.routing.RoutingPolicies;
import io.kvrouter.routing.RoutingPolicy;
import io.kvrouter.tools.report.Latency;
import io.kvrouter.tools.report.PolicyRun;
import io.kvrouter.tools.report.Timeline;
import io.kvrouter.tools.trace.PromptBlocks;
import io.kvrouter.tools.trace.TraceRequest;
import io.kvrouter.worker.engine.EngineCore;
import io.kvrouter.worker.engine.EngineListener;
import io.kvrouter.worker.engine.EngineRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.IntConsumer;

/**
 * One replay of a trace under one policy, in virtual time. Each request arrives at its timestamp,
 * is routed by the policy (the router's own {@link RoutingPolicy}, which sees the KV events of
 * every engine {@code eventDelayMillis} after they happen), queues at its worker's {@link
 * EngineCore}, and is measured as a client would: time to first token, the gaps between tokens, and
 * time to its last token. The engines report, as ground truth, how many prompt tokens they found
 * cached.
 */
public final class Simulation {
  private final SimulationSettings settings;
  private final List<TraceRequest> trace;
  private final List<PromptBlocks> prompts;

  /**
   * @param prompts each request's prompt blocks at the engine's block size, in trace order
   */
  public Simulation(
      SimulationSettings settings, List<TraceRequest> trace, List<PromptBlocks> prompts) {
    if (trace.size() != prompts.size()) {
      throw new IllegalArgumentException(
          trace.size() + " requests, " + prompts.size() + " prompts");
    }
    this.settings = settings;
    this.trace = List.copyOf(trace);
    this.prompts = List.copyOf(prompts);
  }

  /**
   * Replays the trace under {@code policy}.
   *
   * @param progress told the number of requests completed as it grows
   */
  public PolicyRun run(RouterMode policy, IntConsumer progress) {
    return replay(policy, progress).result;
  }

  /** Runs the replay and returns it, for tests to look inside. */
  Replay replay(RouterMode policy, IntConsumer progress) {
    Replay replay = new Replay(policy, progress);
    try {
      replay.result = replay.run();
    } finally {
      replay.policy.close();
    }
    return replay;
  }

  /** The state of one run. */
  final class Replay {
    PolicyRun result;

    /** Per worker, the most KV blocks its engine held (reserved or cached) after any step. */
    final int[] peakUsedBlocks = new int[settings.workers()];

    final VirtualTime time = new VirtualTime();
    final RoutingPolicy policy;
    final IntConsumer progress;
    final List<Worker> workers = new ArrayList<>();

    /** Each request's booking in the policy, by trace index, from its arrival. */
    final RoutingPolicy.Booking[] bookings = new RoutingPolicy.Booking[trace.size()];

    final double[] arrival = new double[trace.size()];
    final double[] firstToken = new double[trace.size()];
    final double[] lastToken = new double[trace.size()];
    final Samples gaps = new Samples();
    long outputTokens;
    int completed;
    int maxQueue;
    final List<double[]> loadSamples = new ArrayList<>();
    final Samples hitRates = new Samples();
    long sampledPrompt;
    long sampledCached;

    Replay(RouterMode mode, IntConsumer progress) {
      this.progress = progress;
      this.policy =
          RoutingPolicies.simulated(
              mode,
              new PolicySettings(
                  settings.engine().blockSize(),
                  KvRouterConfig.DEFAULTS.withCost(settings.kvCost()),
                  settings.engine().maxNumBatchedTokens(),
                  new Random(settings.seed()),
                  time::nowNanos));
      for (int i = 0; i < settings.workers(); i++) {
        workers.add(new Worker(WorkerRank.of("worker-" + i)));
      }
    }

    private PolicyRun run() {
      for (TraceRequest request : trace) {
        time.at(request.arrivalMillis(), () -> arrive(request));
      }
      time.at(settings.timelineIntervalMillis(), this::sample);
      time.runAll();
      if (completed < trace.size()) {
        throw new IllegalStateException(
            "the replay stalled with " + (trace.size() - completed) + " requests unfinished");
      }
      return result();
    }

    void arrive(TraceRequest request) {
      int i = request.index();
      arrival[i] = time.nowMillis();
      PromptBlocks blocks = prompts.get(i);
      String id = Integer.toString(i);
      Prompt prompt = Prompt.hashed(request.inputTokens(), blocks.local(), blocks.sequence());
      RoutingPolicy.Choice<Worker> choice = policy.choose(prompt, workers);
      bookings[i] = policy.book(id, prompt, choice);
      Worker worker = choice.worker();
      worker.engine.submit(
          new EngineRequest(
              id,
              request.inputTokens(),
              blocks.sequence(),
              blocks.local(),
              request.outputTokens()));
      maxQueue = Math.max(maxQueue, worker.engine.waitingRequests());
      worker.kick();
    }

    void sample() {
      double[] load = new double[workers.size()];
      long prompt = 0;
      long cached = 0;
      for (int w = 0; w < workers.size(); w++) {
        EngineCore engine = workers.get(w).engine;
        load[w] = engine.waitingRequests() + engine.runningRequests();
        prompt += engine.promptTokens();
        cached += engine.cachedPromptTokens();
      }
      loadSamples.add(load);
      hitRates.add(
          prompt == sampledPrompt
              ? Double.NaN
              : (double) (cached - sampledCached) / (prompt - sampledPrompt));
      sampledPrompt = prompt;
      sampledCached = cached;
      // sampling alone must not keep the replay going: with nothing else scheduled, it is over
      if (completed < trace.size() && time.hasPending()) {
        time.after(settings.timelineIntervalMillis(), this::sample);
      }
    }

    PolicyRun result() {
      int n = trace.size();
      double[] ttft = new double[n];
      double[] e2e = new double[n];
      double start = Double.MAX_VALUE;
      double end = 0;
      for (int i = 0; i < n; i++) {
        ttft[i] = firstToken[i] - arrival[i];
        e2e[i] = lastToken[i] - arrival[i];
        start = Math.min(start, arrival[i]);
        end = Math.max(end, lastToken[i]);
      }
      long prompt = 0;
      long cached = 0;
      for (Worker worker : workers) {
        prompt += worker.engine.promptTokens();
        cached += worker.engine.cachedPromptTokens();
      }
      double seconds = (end - start) / 1000.0;
      return new PolicyRun(
          policy.mode().configName(),
          completed,
          prompt == 0 ? 0.0 : (double) cached / prompt,
          Latency.of(ttft),
          Latency.of(gaps.toArray()),
          Latency.of(e2e),
          seconds > 0 ? outputTokens / seconds : 0,
          maxQueue,
          ttft,
          timeline());
    }

    Timeline timeline() {
      double[][] perWorker = new double[workers.size()][loadSamples.size()];
      for (int t = 0; t < loadSamples.size(); t++) {
        for (int w = 0; w < workers.size(); w++) {
          perWorker[w][t] = loadSamples.get(t)[w];
        }
      }
      return new Timeline(
          settings.timelineIntervalMillis() / 1000.0,
          workers.stream().map(w -> w.rank.workerId()).toList(),
          hitRates.toArray(),
          perWorker);
    }

    /**
     * A simulated worker: its engine, stepped in virtual time, and what it reports; one rank, with
     * the engine's KV capacity, as the policy sees it.
     */
    final class Worker implements EngineListener, RouteCandidate {
      final WorkerRank rank;
      final int index;
      final EngineCore engine;

      Worker(WorkerRank rank) {
        this.rank = rank;
        this.index = workers.size();
        this.engine = new EngineCore(settings.engine(), this, this::onKvEvent);
      }

      @Override
      public String workerId() {
        return rank.workerId();
      }

      @Override
      public List<WorkerRank> ranks() {
        return List.of(rank);
      }

      @Override
      public long totalKvBlocks(int dpRank) {
        return settings.engine().numGpuBlocks();
      }

      @Override
      public long reportedActiveBlocks(int dpRank) {
        return -1;
      }

      /** Starts the next step unless one is running or there is nothing to do. */
      void kick() {
        if (engine.stepping()) {
          return;
        }
        EngineCore.Step step = engine.startStep();
        peakUsedBlocks[index] = Math.max(peakUsedBlocks[index], engine.usedBlocks());
        if (step != null) {
          maxQueue = Math.max(maxQueue, engine.waitingRequests());
          time.after(
              step.durationMillis(),
              () -> {
                engine.completeStep(step);
                kick();
              });
        }
      }

      @Override
      public boolean onToken(EngineRequest request, int index) {
        int i = Integer.parseInt(request.id());
        double now = time.nowMillis();
        if (index == 0) {
          firstToken[i] = now;
          bookings[i].firstOutput();
        } else {
          gaps.add(now - lastToken[i]);
        }
        lastToken[i] = now;
        outputTokens++;
        return false;
      }

      @Override
      public void onFinished(EngineRequest request) {
        bookings[Integer.parseInt(request.id())].release();
        completed++;
        progress.accept(completed);
      }

      void onKvEvent(KvCacheEvent event) {
        if (policy.followsKvEvents()) {
          time.after(settings.eventDelayMillis(), () -> policy.kvEvent(rank, event));
        }
      }
    }
  }
}
