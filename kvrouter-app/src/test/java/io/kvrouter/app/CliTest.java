package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.ConfigLoader;
import io.kvrouter.config.EngineTiming;
import io.kvrouter.config.RouterConfig;
import io.kvrouter.config.RouterMode;
import io.kvrouter.config.Setting;
import io.kvrouter.config.Settings;
import io.kvrouter.config.SimulatedEngineConfig;
import io.kvrouter.config.WorkerConfig;
import io.kvrouter.config.WorkerConfigLoader;
import io.kvrouter.config.WorkerSettings;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

class CliTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private OptionalInt run(Map<String, String> env, String... args) {
    return Cli.run(args, env, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  @Test
  void help_listsEveryOptionWithItsVariable() {
    assertThat(run(Map.of(), "--help")).hasValue(0);
    String help = out.toString();
    for (Setting<?> setting : Settings.ALL) {
      assertThat(help).contains(setting.isSwitch() ? "--[no-]" + setting.name() : setting.flag());
      if (setting.envVar() != null) {
        assertThat(help).contains(setting.envVar());
      }
    }
    assertThat(help).contains("--config").contains("worker");
  }

  @Test
  void dynamosOtherSpellingOfAFlag_setsTheSameSetting() {
    CommandLine commandLine = new CommandLine(Cli.routerSpec());
    Map<String, List<String>> flags =
        Cli.flags(
            commandLine.parseArgs(
                "--router-kv-overlap-score-weight", "2", "--router-ttl", "30", "--http-port", "1"));
    assertThat(Cli.flags(commandLine.parseArgs("--no-kv-events")))
        .containsEntry("kv-events", List.of("false"));
    assertThat(Cli.flags(new CommandLine(Cli.routerSpec()).parseArgs("--router-kv-events")))
        .containsEntry("kv-events", List.of("true"));
    assertThat(flags)
        .containsEntry("kv-overlap-score-weight", List.of("2"))
        .containsEntry("router-ttl-secs", List.of("30"))
        .containsEntry("http-port", List.of("1"));
  }

  @Test
  void invalidFlag_exitsTwoNamingSettingAndValidValues() {
    assertThat(run(Map.of(), "--mock-workers", "1", "--router-mode", "sticky")).hasValue(2);
    assertThat(err.toString())
        .contains("--router-mode")
        .contains("'sticky'")
        .contains("kv, approx, round-robin, random, least-loaded, power-of-two, sglang");
  }

  @Test
  void help_ofTheRouterAndOfSimulate_listEveryPolicyAndWhatItDoes() {
    assertThat(run(Map.of(), "--help")).hasValue(0);
    String router = out.toString().replaceAll("\\s+", " ");
    out.getBuffer().setLength(0);
    assertThat(run(Map.of(), "simulate", "--help")).hasValue(0);
    String simulate = out.toString().replaceAll("\\s+", " ");
    String names = String.join(", ", RouterMode.names());
    assertThat(router).contains("one of: " + names);
    assertThat(simulate).contains(names + ", all").contains("--router-kv-cost");
    for (RouterMode mode : RouterMode.values()) {
      assertThat(router).contains(mode.configName() + ": " + mode.description());
    }
    assertThat(err.toString()).as("picocli formats every description").isEmpty();
  }

  /** The README's --router-mode row names the policies simulate --policy takes, in its order. */
  @Test
  void readme_listsEveryRouterModeInItsConfigurationTable() throws IOException {
    Path dir = Path.of("").toAbsolutePath();
    while (!Files.exists(dir.resolve("README.md"))) {
      dir = dir.getParent();
    }
    String row =
        Files.readAllLines(dir.resolve("README.md")).stream()
            .filter(line -> line.startsWith("| `--router-mode`"))
            .findFirst()
            .orElseThrow();
    assertThat(row).contains(String.join(", ", RouterMode.names()));
  }

  @Test
  void invalidVariable_exitsTwoNamingTheVariable() {
    assertThat(run(Map.of("DYN_HTTP_PORT", "eighty"), "--mock-workers", "1")).hasValue(2);
    assertThat(err.toString()).contains("DYN_HTTP_PORT").contains("--http-port");
  }

  @Test
  void unknownOption_exitsTwo() {
    assertThat(run(Map.of(), "--no-such-option")).hasValue(2);
    assertThat(err.toString()).contains("--no-such-option");
  }

  @Test
  void missingConfigFile_exitsTwo() {
    assertThat(run(Map.of(), "--config", "/no/such/file.yaml")).hasValue(2);
    assertThat(err.toString()).contains("/no/such/file.yaml");
  }

  @Test
  void worker_requiresPortAndValidatesIt() {
    assertThat(run(Map.of(), "worker", "--model-name", "m")).hasValue(2);
    assertThat(err.toString()).contains("--port is required");
    assertThat(run(Map.of(), "worker", "--model-name", "m", "--port", "99999")).hasValue(2);
    assertThat(err.toString()).contains("--port").contains("0 to 65535");
  }

  @Test
  void modelFolderWithoutTokenizer_exitsTwoNamingModelPath(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
    assertThat(run(Map.of(), "--mock-workers", "1", "--model-path", dir.toString())).hasValue(2);
    assertThat(err.toString()).contains("--model-path").contains("tokenizer.json");
  }

  @Test
  void routerOptionsBeforeWorker_exitTwo() {
    assertThat(run(Map.of(), "--http-port", "1", "worker", "--model-name", "m", "--port", "0"))
        .hasValue(2);
    assertThat(err.toString()).contains("before 'worker'");
  }

  @Test
  void workerVariables_areReadAndValidated() {
    assertThat(run(Map.of("DYN_TCP_RPC_PORT", "many"), "worker", "--model-name", "m")).hasValue(2);
    assertThat(err.toString()).contains("DYN_TCP_RPC_PORT");
    assertThat(
            run(
                Map.of("DYN_TCP_MAX_MESSAGE_SIZE", "12"),
                "worker",
                "--model-name",
                "m",
                "--port",
                "0"))
        .hasValue(2);
    assertThat(err.toString()).contains("DYN_TCP_MAX_MESSAGE_SIZE");
  }

  @Test
  void workerHelp_explainsOptions() {
    assertThat(run(Map.of(), "worker", "--help")).hasValue(0);
    String help = out.toString();
    for (Setting<?> setting : WorkerSettings.ALL) {
      assertThat(help).contains(setting.isSwitch() ? "--[no-]" + setting.name() : setting.flag());
      if (setting.envVar() != null) {
        assertThat(help).contains(setting.envVar());
      }
    }
    assertThat(help)
        .contains("--ttft-ms")
        .contains("--itl-ms")
        .contains("DYN_TCP_RPC_PORT")
        .contains("--block-size")
        .contains("--num-gpu-blocks")
        .contains("16384")
        .contains("--config")
        .contains("Precedence: option > environment variable > file > default.");
  }

  @Test
  void invalidWorkerValue_exitsTwoNamingSettingAndValidValues() {
    assertThat(
            run(Map.of(), "worker", "--model-name", "m", "--port", "0", "--timing-model", "exact"))
        .hasValue(2);
    assertThat(err.toString())
        .contains("Invalid value 'exact' for --timing-model")
        .contains("fixed, mocker");
  }

  @Test
  void workerConfigFile_isRead_andItsValuesValidated(@TempDir Path dir) throws IOException {
    Path file = Files.writeString(dir.resolve("worker.yaml"), "port: 0\nwatermark: 2\n");
    assertThat(run(Map.of(), "worker", "--model-name", "m", "--config", file.toString()))
        .hasValue(2);
    assertThat(err.toString())
        .contains("Invalid value '2' for --watermark (from watermark in " + file + ")");
  }

  /**
   * The engine options of {@code router.jar worker} are the router's {@code --mock-*} ones without
   * {@code mock-}; both commands also take their earlier spellings of the KV cache's size.
   */
  @Test
  void sharedEngineOptions_describeTheSameEngineInBothCommands() {
    String[] knobs = {
      "speedup-ratio",
      "4",
      "max-num-seqs",
      "8",
      "max-num-batched-tokens",
      "512",
      "watermark",
      "0.05",
      "num-gpu-blocks",
      "64"
    };
    List<String> router =
        new ArrayList<>(List.of("--mock-workers", "1", "--kv-cache-block-size", "32"));
    List<String> worker =
        new ArrayList<>(List.of("--port", "0", "--model-name", "m", "--kv-cache-block-size", "32"));
    for (int i = 0; i < knobs.length; i += 2) {
      router.addAll(List.of("--mock-" + knobs[i], knobs[i + 1]));
      worker.addAll(List.of("--" + knobs[i], knobs[i + 1]));
    }

    SimulatedEngineConfig mock = routerConfig(router).mockWorkers().engine();
    assertThat(workerConfig(worker).engine()).isEqualTo(mock);
    assertThat(mock.timing()).isEqualTo(EngineTiming.MOCKER);
    assertThat(mock.numGpuBlocks()).isEqualTo(64);

    assertThat(
            routerConfig(List.of("--mock-workers", "1", "--mock-kv-blocks", "7"))
                .mockWorkers()
                .engine()
                .numGpuBlocks())
        .isEqualTo(7);
    assertThat(
            workerConfig(List.of("--port", "0", "--model-name", "m", "--block-size", "64"))
                .engine()
                .blockSize())
        .isEqualTo(64);
  }

  private static RouterConfig routerConfig(List<String> args) {
    return ConfigLoader.load(
        Cli.flags(new CommandLine(Cli.routerSpec()).parseArgs(args.toArray(String[]::new))),
        Map.of(),
        null);
  }

  private static WorkerConfig workerConfig(List<String> args) {
    ParseResult parsed =
        new CommandLine(new WorkerCommand().spec()).parseArgs(args.toArray(String[]::new));
    return WorkerConfigLoader.load(
        SettingOptions.flags(parsed, WorkerSettings.ALL), Map.of(), null);
  }

  @Test
  void workerKvCacheSizes_areValidated() {
    assertThat(run(Map.of(), "worker", "--model-name", "m", "--port", "0", "--block-size", "0"))
        .hasValue(2);
    assertThat(err.toString())
        .contains("Invalid value '0' for --kv-cache-block-size (from --kv-cache-block-size)")
        .contains("1 to 1024");
    assertThat(run(Map.of(), "worker", "--model-name", "m", "--port", "0", "--num-gpu-blocks", "0"))
        .hasValue(2);
    assertThat(err.toString()).contains("--num-gpu-blocks").contains("1 to 1000000000");
  }

  @Test
  void workerDynamoFormatOnZmq_isValidated() {
    String[] base = {"worker", "--model-name", "m", "--port", "0", "--kv-events-format", "dynamo"};
    for (var bad :
        Map.<List<String>, String>of(
                List.of(), "needs --kv-events-port",
                List.of("--kv-events-port", "0", "--kv-replay-port", "0"),
                    "--kv-replay-port is vLLM's replay socket",
                List.of("--kv-events-port", "0", "--kv-metrics-port", "70000"),
                    "Invalid value '70000' for --kv-metrics-port")
            .entrySet()) {
      List<String> args = new java.util.ArrayList<>(List.of(base));
      args.addAll(bad.getKey());
      assertThat(run(Map.of(), args.toArray(String[]::new))).as(args.toString()).hasValue(2);
      assertThat(err.toString()).contains(bad.getValue());
    }
    assertThat(
            run(
                Map.of(),
                "worker",
                "--model-name",
                "m",
                "--port",
                "0",
                "--kv-events-port",
                "0",
                "--kv-metrics-port",
                "0"))
        .hasValue(2);
    assertThat(err.toString()).contains("--kv-metrics-port is for --kv-events-format dynamo");
  }
}
