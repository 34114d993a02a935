package io.kvrouter.app;

import io.kvrouter.common.Ticker;
import io.kvrouter.tools.bench.BenchException;
import io.kvrouter.tools.bench.BenchResult;
import io.kvrouter.tools.bench.BenchSettings;
import io.kvrouter.tools.bench.TraceBench;
import io.kvrouter.tools.report.ConsoleTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code router.jar bench}: replays a Mooncake trace against a running router and reports what a
 * client saw. Only parses and wires; the client is {@link TraceBench}.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Replay a Mooncake trace against a running router as an HTTP client, on the trace's"
          + " schedule (each request is sent at its time whether or not earlier ones have"
          + " finished), and measure time to first token, inter-token latency and end-to-end"
          + " latency from the client side.",
      "Each request is a streamed /v1/completions call whose prompt is token ids standing for"
          + " the trace's hash_ids (equal ids, equal prefix) and which generates output_length"
          + " tokens (ignore_eos). The router's /metrics and /router/workers are polled for its"
          + " predicted KV hit rate and per-worker load.",
      "Prints a summary table and writes DIR/results.json and DIR/report.html. Exit code: 0,"
          + " 1 when requests failed (unless --allow-failures) or the router cannot be reached,"
          + " 2 for invalid options or trace."
    })
final class BenchCommand implements Subcommand {
  @Spec CommandSpec spec;

  @Option(
      names = "--url",
      required = true,
      paramLabel = "URL",
      description =
          "The router's base URL, like http://127.0.0.1:8000. Required. Repeat it for a fleet"
              + " of routers in front of the same workers: requests go to them in turn, and"
              + " their hit rates and per-worker loads are added up.")
  List<String> urls;

  @Option(
      names = "--trace",
      required = true,
      paramLabel = "FILE",
      description =
          "Mooncake trace (JSONL): timestamp (ms), input_length, output_length and hash_ids"
              + " (one per 512 prompt tokens) per line. Required.")
  Path trace;

  @Option(
      names = "--rate-scale",
      paramLabel = "X",
      defaultValue = "1",
      description =
          "Send requests X times as often as the trace does (its timestamps divided by X);"
              + " above 0. Default: ${DEFAULT-VALUE}.")
  double rateScale;

  @Option(
      names = "--duration",
      paramLabel = "S",
      description =
          "Send only the requests arriving (after --rate-scale) in the first S seconds, then"
              + " wait for those in flight. Default: the whole trace.")
  Double duration;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      defaultValue = "bench-results",
      description =
          "Folder for results.json and report.html, created if missing. Default:"
              + " ${DEFAULT-VALUE}.")
  Path out;

  @Option(
      names = "--label",
      paramLabel = "NAME",
      description =
          "Name of the run in the results. Default: the router's mode (kv, round-robin,"
              + " random) as its /metrics tells, else live.")
  String label;

  @Option(
      names = "--model",
      paramLabel = "NAME",
      description = "Model to ask for. Default: the first that GET /v1/models lists.")
  String model;

  @Option(
      names = "--token-range",
      paramLabel = "FIRST:COUNT",
      description =
          "Prompt token ids to draw from, FIRST to FIRST+COUNT-1: they must be ordinary"
              + " (not special) tokens of the router's vocabulary. Default: chosen by asking"
              + " POST /router/explain which ids the router takes: 0:256 for the demo byte"
              + " tokenizer, else 1000:32000 (ordinary tokens in the Llama 3, Qwen, DeepSeek V3,"
              + " Gemma 3, Mistral Nemo and gpt-oss vocabularies).")
  String tokenRange;

  @Option(
      names = "--timeout",
      paramLabel = "S",
      defaultValue = "600",
      description = "A request not done S seconds after its send fails. Default: ${DEFAULT-VALUE}.")
  double timeout;

  @Option(
      names = "--interval",
      paramLabel = "S",
      defaultValue = "1",
      description =
          "Poll the router's /router/workers and /metrics every S seconds for the report's"
              + " timeline. Default: ${DEFAULT-VALUE}.")
  double interval;

  @Option(
      names = "--connections",
      paramLabel = "N",
      defaultValue = "1024",
      description =
          "Most HTTP connections to each router at once (one per streaming request); a"
              + " request beyond them waits for one, and the wait counts in its latency. Default:"
              + " ${DEFAULT-VALUE}.")
  int connections;

  @Option(
      names = "--allow-failures",
      description = "Exit 0 even when requests failed (they are still counted and reported).")
  boolean allowFailures;

  @Override
  public OptionalInt run(Map<String, String> env) {
    PrintWriter stdout = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    BenchSettings settings;
    try {
      settings = settings();
      Files.createDirectories(out);
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      return OptionalInt.of(Cli.USAGE_ERROR);
    } catch (IOException e) {
      err.println("error: cannot create --out " + out + ": " + e.getMessage());
      return OptionalInt.of(Cli.USAGE_ERROR);
    }
    BenchResult result;
    try {
      result = TraceBench.run(settings, err, Ticker.SYSTEM);
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      return OptionalInt.of(Cli.USAGE_ERROR);
    } catch (BenchException e) {
      err.println("error: " + e.getMessage());
      return OptionalInt.of(1);
    }
    stdout.print(ConsoleTable.render(result.report().policies()));
    stdout.flush();
    if (result.failed() > 0) {
      err.printf(
          "%d of %d requests failed; the first:%n",
          result.failed(), result.failed() + result.completed().size());
      result.errors().forEach(e -> err.println("  " + e));
    }
    try {
      ReportFiles.write(result.report(), out);
    } catch (UncheckedIOException e) {
      err.println("error: cannot write the results into " + out + ": " + e.getMessage());
      return OptionalInt.of(1);
    }
    stdout.println("results: " + out.resolve("results.json") + ", " + out.resolve("report.html"));
    return OptionalInt.of(result.failed() > 0 && !allowFailures ? 1 : 0);
  }

  private BenchSettings settings() {
    List<URI> bases = new ArrayList<>();
    for (String url : urls) {
      try {
        bases.add(new URI(url));
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException("--url '" + url + "' is not a URL: " + e.getReason());
      }
    }
    return new BenchSettings(
        bases,
        trace,
        rateScale,
        duration,
        seconds(timeout, "--timeout"),
        seconds(interval, "--interval"),
        connections,
        model,
        label,
        tokenRange == null ? null : BenchSettings.TokenRange.parse(tokenRange));
  }

  private static Duration seconds(double seconds, String option) {
    if (!(seconds > 0) || Double.isInfinite(seconds)) {
      throw new IllegalArgumentException(
          option + " must be a number of seconds above 0, not " + seconds);
    }
    return Duration.ofNanos(Math.round(seconds * 1e9));
  }
}
