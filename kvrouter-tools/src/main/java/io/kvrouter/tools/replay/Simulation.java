package io.kvrouter.tools.replay;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.routing.HashedPrompt;
import io.kvrouter.routing.RankPolicies;
import io.kvrouter.routing.RankPolicy;
import io.kvrouter.tools.report.Latency;
import io.kvrouter.tools.report.PolicyRun;
import io.kvrouter.tools.report.Timeline;
import io.kvrouter.tools.trace.PromptBlocks;
import io.kvrouter.tools.trace.TraceRequest;
import io.kvrouter.worker.engine.EngineCore;
import io.kvrouter.worker.engine.EngineListener;
import io.kvrouter.worker.engine.EngineRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;

/**
 * One replay of a trace under one policy, in virtual time. Each request arrives at its timestamp,
 * is routed by the policy (which sees the KV events of every engine {@code eventDelayMillis} after
 * they happen), queues at its worker's {@link EngineCore}, and is measured as a client would: time
 * to first token, the gaps between tokens, and time to its last token. The engines report, as
 * ground truth, how many prompt tokens they found cached.
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
   * Replays the trace under {@code policyName}.
   *
   * @param progress told the number of requests completed as it grows
   */
  public PolicyRun run(String policyName, IntConsumer progress) {
    return replay(policyName, progress).result;
  }

  /** Runs the replay and returns it, for tests to look inside. */
  Replay replay(String policyName, IntConsumer progress) {
    Replay replay = new Replay(policyName, progress);
    replay.result = replay.run();
    return replay;
  }

  /** The state of one run. */
  final class Replay {
    PolicyRun result;

    /** Per worker, the most KV blocks its engine held (reserved or cached) after any step. */
    final int[] peakUsedBlocks = new int[settings.workers()];

    final VirtualTime time = new VirtualTime();
    final RankPolicy policy;
    final IntConsumer progress;
    final List<Worker> workers = new ArrayList<>();
    final Map<WorkerRank, Worker> workerOf = new HashMap<>();
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

    Replay(String policyName, IntConsumer progress) {
      this.progress = progress;
      List<WorkerRank> ranks = new ArrayList<>();
      for (int i = 0; i < settings.workers(); i++) {
        ranks.add(WorkerRank.of("worker-" + i));
      }
      this.policy =
          RankPolicies.create(
              policyName,
              ranks,
              new RankPolicies.Options(
                  settings.engine().blockSize(),
                  settings.engine().numGpuBlocks(),
                  settings.engine().maxNumBatchedTokens(),
                  settings.seed(),
                  time::nowNanos));
      for (WorkerRank rank : ranks) {
        Worker worker = new Worker(rank);
        workers.add(worker);
        workerOf.put(rank, worker);
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
      WorkerRank rank =
          policy.route(
              new HashedPrompt(id, request.inputTokens(), blocks.local(), blocks.sequence()));
      Worker worker = workerOf.get(rank);
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
          policy.name(),
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

    /** A simulated worker: its engine, stepped in virtual time, and what it reports. */
    final class Worker implements EngineListener {
      final WorkerRank rank;
      final int index;
      final EngineCore engine;

      Worker(WorkerRank rank) {
        this.rank = rank;
        this.index = workers.size();
        this.engine = new EngineCore(settings.engine(), this, this::onKvEvent);
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
          policy.prefillDone(request.id());
        } else {
          gaps.add(now - lastToken[i]);
        }
        lastToken[i] = now;
        outputTokens++;
        return false;
      }

      @Override
      public void onFinished(EngineRequest request) {
        policy.finished(request.id());
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
