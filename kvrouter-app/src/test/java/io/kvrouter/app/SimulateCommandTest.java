package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvrouter.config.ConfigLoader;
import io.kvrouter.config.RouterConfig;
import io.kvrouter.config.RouterMode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code router.jar simulate} through the command line, on a small hand-made trace. */
class SimulateCommandTest {
  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private OptionalInt run(String... args) {
    return Cli.run(args, Map.of(), new PrintWriter(out, true), new PrintWriter(err, true));
  }

  /** 40 requests: 4 conversations of 10 turns, each turn extending the last by one block. */
  private Path trace() throws IOException {
    List<String> lines = new ArrayList<>();
    for (int turn = 0; turn < 10; turn++) {
      for (int c = 0; c < 4; c++) {
        StringBuilder ids = new StringBuilder();
        for (int b = 0; b <= turn + 2; b++) {
          ids.append(b == 0 ? "" : ", ").append(c * 1000 + b);
        }
        int input = (turn + 2) * 512 + 100;
        lines.add(
            "{\"timestamp\": "
                + (turn * 2000 + c * 50)
                + ", \"input_length\": "
                + input
                + ", \"output_length\": 20, \"hash_ids\": ["
                + ids
                + "]}");
      }
    }
    Path file = dir.resolve("trace.jsonl");
    Files.write(file, lines);
    return file;
  }

  @Test
  void printsARowPerPolicyAndWritesResultsAndReport() throws IOException {
    Path results = dir.resolve("out");
    OptionalInt exit =
        run(
            "simulate",
            "--trace",
            trace().toString(),
            "--workers",
            "2",
            "--policy",
            "kv,round-robin",
            "--out",
            results.toString());

    assertThat(exit).as(err.toString()).hasValue(0);
    String[] lines = out.toString().split("\n");
    assertThat(lines[0]).contains("TTFT (ms)");
    assertThat(lines[1]).startsWith("policy").contains("hit rate");
    assertThat(lines[2]).startsWith("kv ").contains(" 40 ");
    assertThat(lines[3]).startsWith("round-robin ").contains(" 40 ");
    JsonNode json = new ObjectMapper().readTree(results.resolve("results.json").toFile());
    assertThat(json.get("policies")).hasSize(2);
    assertThat(json.get("policies").get(0).get("policy").asText()).isEqualTo("kv");
    assertThat(json.get("policies").get(0).get("requests").asInt()).isEqualTo(40);
    assertThat(json.get("policies").get(0).get("hit_rate").asDouble()).isPositive();
    assertThat(Files.readString(results.resolve("report.html"))).contains("<svg");
  }

  @Test
  void theSameSeedGivesTheSameTable() throws IOException {
    Path file = trace();
    run("simulate", "--trace", file.toString(), "--workers", "3", "--policy", "random,sglang");
    String first = out.toString();
    out.getBuffer().setLength(0);
    run("simulate", "--trace", file.toString(), "--workers", "3", "--policy", "random,sglang");
    assertThat(out.toString()).isEqualTo(first);
  }

  @Test
  void anUnknownPolicyIsAUsageErrorNamingTheValidOnes() throws IOException {
    assertThat(run("simulate", "--trace", trace().toString(), "--workers", "2", "--policy", "best"))
        .hasValue(Cli.USAGE_ERROR);
    assertThat(err.toString()).contains("unknown policy 'best'").contains("sglang");
  }

  /** One list of names: each policy is a --router-mode of the router and a simulate --policy. */
  @ParameterizedTest
  @EnumSource(RouterMode.class)
  void everyPolicyIsBothARouterModeAndASimulatedPolicy(RouterMode mode) throws IOException {
    RouterConfig config =
        ConfigLoader.load(
            Map.of("mock-workers", List.of("1"), "router-mode", List.of(mode.configName())),
            Map.of(),
            null);
    assertThat(config.routerMode()).isEqualTo(mode);

    assertThat(simulateOnTwoWorkers("--policy", mode.configName())).as(err.toString()).hasValue(0);
    assertThat(out.toString().split("\n")[2]).startsWith(mode.configName() + " ");
  }

  @Test
  void theKvCostIsTheRoutersOption() throws IOException {
    assertThat(simulateOnTwoWorkers("--policy", "kv")).hasValue(0);
    String byDefault = out.toString();
    out.getBuffer().setLength(0);
    assertThat(simulateOnTwoWorkers("--policy", "kv", "--router-kv-cost", "dynamo")).hasValue(0);
    assertThat(out.toString()).as("dynamo is the default").isEqualTo(byDefault);
    out.getBuffer().setLength(0);
    assertThat(simulateOnTwoWorkers("--policy", "kv", "--router-kv-cost", "predicted-ttft"))
        .hasValue(0);
    assertThat(out.toString().split("\n")[2]).startsWith("kv ");

    assertThat(simulateOnTwoWorkers("--policy", "kv", "--router-kv-cost", "cheapest"))
        .hasValue(Cli.USAGE_ERROR);
    assertThat(err.toString())
        .contains("unknown cost 'cheapest'")
        .contains("dynamo, predicted-ttft");
  }

  @Test
  void theOldSimulatorOnlyNameDynamoIsNoPolicy() throws IOException {
    assertThat(simulateOnTwoWorkers("--policy", "dynamo")).hasValue(Cli.USAGE_ERROR);
    assertThat(err.toString())
        .contains("unknown policy 'dynamo'")
        .contains("kv, approx, round-robin, random, least-loaded, power-of-two, sglang, all");
  }

  /** {@code simulate} of the {@link #trace} on two workers, with {@code options}. */
  private OptionalInt simulateOnTwoWorkers(String... options) throws IOException {
    String[] common = {"simulate", "--trace", trace().toString(), "--workers", "2"};
    return run(Stream.concat(Stream.of(common), Stream.of(options)).toArray(String[]::new));
  }

  @Test
  void aMissingTraceIsAUsageError() {
    assertThat(run("simulate", "--trace", dir.resolve("none.jsonl").toString(), "--workers", "2"))
        .hasValue(Cli.USAGE_ERROR);
    assertThat(err.toString()).contains("trace file not found");
  }

  @Test
  void aBadRecordNamesItsLine() throws IOException {
    Path file = dir.resolve("bad.jsonl");
    Files.writeString(
        file,
        "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [1, 2]}\n"
            + "{\"timestamp\": 1, \"input_length\": 1600, \"output_length\": 5, \"hash_ids\": [1]}\n");
    assertThat(run("simulate", "--trace", file.toString(), "--workers", "2"))
        .hasValue(Cli.USAGE_ERROR);
    assertThat(err.toString()).contains("line 2").contains("needs 4 hash_ids");
  }

  @Test
  void aRequestLargerThanTheCacheIsRefusedWithWhatToChange() throws IOException {
    assertThat(simulateOnTwoWorkers("--num-gpu-blocks", "4", "--policy", "kv"))
        .hasValue(Cli.USAGE_ERROR);
    assertThat(err.toString()).contains("KV blocks").contains("--num-gpu-blocks");
  }
}
