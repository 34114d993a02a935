package io.kvrouter.tools.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ResultsJson}: the fixed shape and key order, rounding, and nulls for unknown values. */
class ResultsJsonTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static JsonNode parse(RunReport report) throws Exception {
    return MAPPER.readTree(ResultsJson.toJson(report));
  }

  private static List<String> keys(JsonNode node) {
    List<String> keys = new ArrayList<>();
    node.fieldNames().forEachRemaining(keys::add);
    return keys;
  }

  private static RunReport single(PolicyRun run) {
    return new RunReport("t", Map.of(), List.of(run));
  }

  private static PolicyRun withNumbers(
      Double hitRate, Latency ttft, Latency itl, double tokensPerS) {
    return new PolicyRun(
        "kv", 3, hitRate, ttft, itl, Latency.EMPTY, tokensPerS, 2, new double[] {1, 2, 3}, null);
  }

  @Test
  void everyPolicy_hasTheSpecsKeys_inTheSpecsOrder_andNoSamplesOrTimeline() throws Exception {
    JsonNode root = parse(SampleReports.threePolicies());

    assertThat(keys(root)).containsExactly("run", "policies");
    assertThat(root.get("policies")).hasSize(3);
    for (JsonNode policy : root.get("policies")) {
      assertThat(keys(policy))
          .containsExactly(
              "policy",
              "requests",
              "hit_rate",
              "ttft_ms",
              "itl_ms",
              "e2e_ms",
              "output_tokens_per_s",
              "max_queue");
      assertThat(keys(policy.get("ttft_ms"))).containsExactly("mean", "p50", "p90", "p99");
      assertThat(keys(policy.get("itl_ms"))).containsExactly("mean", "p99");
      assertThat(keys(policy.get("e2e_ms"))).containsExactly("mean", "p99");
    }
  }

  @Test
  void run_holdsTheTitleAndTheSettings_asStrings_inOrder() throws Exception {
    JsonNode run = parse(SampleReports.threePolicies()).get("run");

    assertThat(keys(run)).containsExactly("title", "settings");
    assertThat(run.get("title").asText()).isEqualTo("simulate mooncake_trace.jsonl");
    assertThat(keys(run.get("settings"))).containsExactly("trace", "workers", "seed");
    assertThat(run.get("settings").get("workers").isTextual()).isTrue();
    assertThat(run.get("settings").get("seed").asText()).isEqualTo("42");
  }

  @Test
  void policies_comeInRunOrder_withTheirValues() throws Exception {
    JsonNode policies = parse(SampleReports.threePolicies()).get("policies");

    assertThat(policies.findValuesAsText("policy")).containsExactly("kv", "round-robin", "bench");
    JsonNode kv = policies.get(0);
    assertThat(kv.get("requests").isInt()).isTrue();
    assertThat(kv.get("requests").intValue()).isEqualTo(50);
    assertThat(kv.get("hit_rate").decimalValue()).isEqualByComparingTo("0.6");
    assertThat(kv.get("ttft_ms").get("mean").decimalValue()).isEqualByComparingTo("12.5");
    assertThat(kv.get("ttft_ms").get("p50").decimalValue()).isEqualByComparingTo("10");
    assertThat(kv.get("ttft_ms").get("p90").decimalValue()).isEqualByComparingTo("20");
    assertThat(kv.get("ttft_ms").get("p99").decimalValue()).isEqualByComparingTo("40");
    assertThat(kv.get("itl_ms").get("mean").decimalValue()).isEqualByComparingTo("8");
    assertThat(kv.get("itl_ms").get("p99").decimalValue()).isEqualByComparingTo("15");
    assertThat(kv.get("e2e_ms").get("mean").decimalValue()).isEqualByComparingTo("900");
    assertThat(kv.get("e2e_ms").get("p99").decimalValue()).isEqualByComparingTo("3000");
    assertThat(kv.get("output_tokens_per_s").decimalValue()).isEqualByComparingTo("1234.5");
    assertThat(kv.get("max_queue").isInt()).isTrue();
    assertThat(kv.get("max_queue").intValue()).isEqualTo(7);
  }

  @Test
  void unknownHitRate_isNull() throws Exception {
    JsonNode bench = parse(SampleReports.threePolicies()).get("policies").get(2);

    assertThat(bench.has("hit_rate")).isTrue();
    assertThat(bench.get("hit_rate").isNull()).isTrue();
  }

  @Test
  void numbers_areRounded_latenciesTo3_hitRateTo4_throughputTo2Decimals() throws Exception {
    PolicyRun run =
        withNumbers(
            0.123456,
            new Latency(12.34567, 0.0004, 99.9995, 1e8),
            new Latency(1.00049, 0, 0, 2.5),
            1234.5678);
    JsonNode policy = parse(single(run)).get("policies").get(0);

    assertThat(policy.get("hit_rate").decimalValue()).isEqualTo(new BigDecimal("0.1235"));
    assertThat(policy.get("ttft_ms").get("mean").decimalValue())
        .isEqualTo(new BigDecimal("12.346"));
    assertThat(policy.get("ttft_ms").get("p50").decimalValue()).isEqualTo(BigDecimal.ZERO);
    assertThat(policy.get("ttft_ms").get("p90").decimalValue()).isEqualTo(new BigDecimal("100"));
    assertThat(policy.get("itl_ms").get("mean").decimalValue()).isEqualTo(new BigDecimal("1"));
    assertThat(policy.get("output_tokens_per_s").decimalValue())
        .isEqualTo(new BigDecimal("1234.57"));
  }

  @Test
  void numbers_areWrittenPlain_withoutExponentOrTrailingZeros() {
    PolicyRun run = withNumbers(0.5, new Latency(1e8, 2.5, 0.1, 100), new Latency(0, 0, 0, 0), 1e7);

    String json = ResultsJson.toJson(single(run));

    assertThat(json)
        .contains("\"mean\" : 100000000,")
        .contains("\"p50\" : 2.5,")
        .contains("\"p90\" : 0.1,")
        .contains("\"p99\" : 100\n")
        .contains("\"output_tokens_per_s\" : 10000000,")
        .doesNotContain("E+", "E-", "e+", "e-", ".0,");
  }

  @Test
  void nanAndInfinities_areWrittenAsNull() throws Exception {
    PolicyRun run =
        withNumbers(
            Double.NaN,
            new Latency(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1),
            Latency.EMPTY,
            Double.NaN);

    String json = ResultsJson.toJson(single(run));
    JsonNode policy = MAPPER.readTree(json).get("policies").get(0);

    assertThat(json).doesNotContain("NaN", "Infinity");
    assertThat(policy.get("hit_rate").isNull()).isTrue();
    assertThat(policy.get("ttft_ms").get("mean").isNull()).isTrue();
    assertThat(policy.get("ttft_ms").get("p50").isNull()).isTrue();
    assertThat(policy.get("ttft_ms").get("p90").isNull()).isTrue();
    assertThat(policy.get("ttft_ms").get("p99").decimalValue()).isEqualByComparingTo("1");
    assertThat(policy.get("output_tokens_per_s").isNull()).isTrue();
  }

  @Test
  void output_isIndented_endsWithANewline_andIsTheSameEveryTime() {
    String json = ResultsJson.toJson(SampleReports.threePolicies());

    assertThat(json).endsWith("}\n").contains("\n  \"policies\" : [");
    assertThat(ResultsJson.toJson(SampleReports.threePolicies())).isEqualTo(json);
  }

  @Test
  void write_putsTheJsonInTheFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("results.json");
    RunReport report = SampleReports.threePolicies();

    ResultsJson.write(report, file);

    assertThat(Files.readString(file)).isEqualTo(ResultsJson.toJson(report));
  }
}
