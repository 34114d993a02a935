package io.kvrouter.app;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.KvCost;
import io.kvrouter.config.RouterMode;
import io.kvrouter.config.Settings;
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.tools.replay.Simulation;
import io.kvrouter.tools.replay.SimulationSettings;
import io.kvrouter.tools.report.ConsoleTable;
import io.kvrouter.tools.report.PolicyRun;
import io.kvrouter.tools.report.ProgressBar;
import io.kvrouter.tools.report.RunReport;
import io.kvrouter.tools.trace.MooncakeTrace;
import io.kvrouter.tools.trace.PromptBlocks;
import io.kvrouter.tools.trace.SyntheticTokens;
import io.kvrouter.tools.trace.TraceRequest;
import io.kvrouter.worker.engine.EngineSettings;
import io.kvrouter.worker.engine.RequestTooLargeException;
import io.kvrouter.worker.engine.TimingModel;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code router.jar simulate}: replays a Mooncake-format trace in virtual time through each chosen
 * routing policy and simulated engines, prints a table row per policy, and writes {@code
 * results.json} and {@code report.html}.
 */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    description = {
      "Replay a request trace in virtual time through routing policies and simulated engines",
      "(Dynamo mocker's timing model), and compare time to first token, latency and throughput.",
      "The same trace, settings and seed give the same numbers."
    })
final class SimulateCommand implements Subcommand {
  /** The {@code --policy} value that names every policy. */
  private static final String ALL = "all";

  /** Token ids the synthetic prompts are drawn from; any range works for hashing. */
  static final SyntheticTokens TOKENS = new SyntheticTokens(1_000, 100_000);

  @Spec CommandSpec spec;

  @Option(
      names = "--trace",
      paramLabel = "FILE",
      required = true,
      description =
          "Mooncake-format trace (JSONL: timestamp ms, input_length, output_length,"
              + " hash_ids of 512-token blocks).")
  Path trace;

  @Option(
      names = "--workers",
      paramLabel = "N",
      required = true,
      description = "Simulated workers, one engine each.")
  int workers;

  @Option(
      names = "--policy",
      paramLabel = "NAME[,NAME...]",
      split = ",",
      completionCandidates = PolicyNames.class,
      description =
          "Policies to compare, in order, by the names the router's --router-mode takes:"
              + " ${COMPLETION-CANDIDATES}. Default: all.")
  List<String> policies = List.of("all");

  @Option(
      names = "--router-kv-cost",
      paramLabel = "COST",
      completionCandidates = KvCostNames.class,
      description =
          "The cost the kv and approx policies minimise, as the router's --router-kv-cost:"
              + " ${COMPLETION-CANDIDATES}. Default: dynamo.")
  String kvCost = "dynamo";

  @Option(
      names = "--block-size",
      paramLabel = "TOKENS",
      description = "KV block size of the engines and the router. Default: 512, the trace's.")
  int blockSize = 512;

  @Option(
      names = "--num-gpu-blocks",
      paramLabel = "BLOCKS",
      description =
          "KV cache capacity per worker in blocks. Default: 1,048,576 tokens' worth"
              + " (the mocker's 16,384 blocks of 64).")
  Integer numGpuBlocks;

  @Option(
      names = "--max-num-seqs",
      paramLabel = "N",
      description = "Requests an engine runs at once. Default: 256.")
  int maxNumSeqs = 256;

  @Option(
      names = "--max-num-batched-tokens",
      paramLabel = "N",
      description =
          "Tokens an engine computes per step; longer prompts prefill in chunks."
              + " Default: 8192.")
  int maxNumBatchedTokens = 8192;

  @Option(
      names = "--watermark",
      paramLabel = "FRACTION",
      description = "Fraction of the KV cache kept free when admitting a request. Default: 0.01.")
  double watermark = 0.01;

  @Option(
      names = "--speedup-ratio",
      paramLabel = "X",
      description = "Engines run X times faster than the fitted GPU timing. Default: 1.")
  double speedupRatio = 1.0;

  @Option(
      names = "--request-rate-scale",
      paramLabel = "X",
      description = "Requests arrive X times as often as in the trace. Default: 1.")
  double requestRateScale = 1.0;

  @Option(
      names = "--duration",
      paramLabel = "S",
      description =
          "Replay only the requests arriving (after --request-rate-scale) in the first"
              + " S seconds, as router.jar bench --duration does. Default: the whole trace.")
  Double durationS;

  @Option(
      names = "--event-delay-ms",
      paramLabel = "MS",
      description = "Time a KV event takes from an engine to the router's index. Default: 5.")
  double eventDelayMs = 5.0;

  @Option(
      names = "--seed",
      paramLabel = "S",
      description = "Seed of the random policies. Default: 42.")
  long seed = 42;

  @Option(
      names = "--timeline-interval-s",
      paramLabel = "S",
      description = "Interval of the report's time series. Default: 10.")
  double timelineIntervalS = 10;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "Write DIR/results.json and DIR/report.html.")
  Path out;

  @Override
  public OptionalInt run(Map<String, String> env) {
    return run(spec.commandLine().getOut(), spec.commandLine().getErr());
  }

  private OptionalInt run(PrintWriter stdout, PrintWriter stderr) {
    List<RouterMode> modes;
    SimulationSettings settings;
    List<TraceRequest> requests;
    try {
      modes = policies();
      if (!(timelineIntervalS > 0)) {
        throw new IllegalArgumentException(
            "--timeline-interval-s must be > 0 seconds: " + timelineIntervalS);
      }
      int blocks = numGpuBlocks == null ? EngineSettings.defaultBlocks(blockSize) : numGpuBlocks;
      EngineSettings engine =
          new EngineSettings(
              blockSize,
              blocks,
              maxNumSeqs,
              maxNumBatchedTokens,
              watermark,
              new TimingModel(speedupRatio));
      settings =
          new SimulationSettings(
              workers, engine, eventDelayMs, seed, timelineIntervalS * 1000, kvCost());
      requests = MooncakeTrace.scaleRate(MooncakeTrace.read(trace), requestRateScale);
      if (durationS != null) {
        requests = MooncakeTrace.firstSeconds(requests, durationS);
      }
    } catch (IllegalArgumentException e) {
      stderr.println("error: " + e.getMessage());
      return OptionalInt.of(Cli.USAGE_ERROR);
    }
    BlockHasher hasher = BlockHasher.of(blockSize);
    List<PromptBlocks> prompts = new ArrayList<>(requests.size());
    for (TraceRequest request : requests) {
      prompts.add(PromptBlocks.of(TOKENS.prompt(request), hasher));
    }
    Simulation simulation = new Simulation(settings, requests, prompts);
    List<PolicyRun> runs = new ArrayList<>();
    for (RouterMode mode : modes) {
      ProgressBar bar =
          ProgressBar.onStandardError(
              mode.configName(), requests.size(), "requests", Ticker.SYSTEM);
      PolicyRun result;
      try {
        result = simulation.run(mode, bar::update);
      } catch (RequestTooLargeException e) {
        bar.finish();
        stderr.println("error: " + e.getMessage() + "; raise --num-gpu-blocks");
        return OptionalInt.of(Cli.USAGE_ERROR);
      }
      bar.finish();
      runs.add(result);
    }
    stdout.print(ConsoleTable.render(runs));
    stdout.flush();
    if (out != null) {
      RunReport report = new RunReport("simulate " + trace.getFileName(), describe(requests), runs);
      try {
        ReportFiles.write(report, out);
      } catch (java.io.UncheckedIOException e) {
        stderr.println("error: " + e.getMessage());
        return OptionalInt.of(1);
      }
      stdout.println("wrote " + out.resolve("results.json") + " and " + out.resolve("report.html"));
    }
    return OptionalInt.of(0);
  }

  private List<RouterMode> policies() {
    List<RouterMode> modes = new ArrayList<>();
    for (String name : policies) {
      String trimmed = name.trim();
      if (trimmed.equals(ALL)) {
        modes.addAll(List.of(RouterMode.values()));
      } else {
        modes.add(
            RouterMode.named(trimmed)
                .orElseThrow(
                    () ->
                        new IllegalArgumentException(
                            "--policy: unknown policy '"
                                + trimmed
                                + "'; valid: "
                                + String.join(", ", new PolicyNames()))));
      }
    }
    return modes.stream().distinct().toList();
  }

  private KvCost kvCost() {
    try {
      return Settings.ROUTER_KV_COST.parse(kvCost);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "--router-kv-cost: unknown cost '"
              + kvCost
              + "'; valid: "
              + String.join(", ", new KvCostNames()));
    }
  }

  /** Every value of {@code --policy}: the router's modes, then {@code all}. */
  static final class PolicyNames implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      List<String> names = new ArrayList<>(RouterMode.names());
      names.add(ALL);
      return names.iterator();
    }
  }

  /** Every value of {@code --router-kv-cost}. */
  static final class KvCostNames implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return Arrays.stream(KvCost.values()).map(KvCost::configName).iterator();
    }
  }

  private Map<String, String> describe(List<TraceRequest> requests) {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("trace", trace.getFileName() + " (" + requests.size() + " requests)");
    s.put("workers", Integer.toString(workers));
    s.put("block size", Integer.toString(blockSize));
    s.put(
        "KV blocks per worker",
        Integer.toString(
            numGpuBlocks == null ? EngineSettings.defaultBlocks(blockSize) : numGpuBlocks));
    s.put("max num seqs", Integer.toString(maxNumSeqs));
    s.put("max num batched tokens", Integer.toString(maxNumBatchedTokens));
    s.put("watermark", Double.toString(watermark));
    s.put("speedup ratio", Double.toString(speedupRatio));
    s.put("request rate scale", Double.toString(requestRateScale));
    s.put("duration", durationS == null ? "whole trace" : durationS + " s");
    s.put("event delay", String.format(Locale.ROOT, "%.1f ms", eventDelayMs));
    s.put("KV cost of kv and approx", kvCost);
    s.put("timeline interval", timelineIntervalS + " s");
    s.put("seed", Long.toString(seed));
    return s;
  }
}
