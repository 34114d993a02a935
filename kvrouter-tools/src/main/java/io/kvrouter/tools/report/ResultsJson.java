package io.kvrouter.tools.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a {@link RunReport} as {@code results.json}, the machine-readable half of a replay's
 * output, meant to be compared across runs and committed next to benchmarks. Its shape is fixed:
 *
 * <pre>
 * {"run": {"title", "settings": {...}},
 *  "policies": [{"policy", "requests", "hit_rate",
 *                "ttft_ms": {"mean", "p50", "p90", "p99"}, "itl_ms": {"mean", "p99"},
 *                "e2e_ms": {"mean", "p99"}, "output_tokens_per_s", "max_queue"}]}
 * </pre>
 *
 * Keys come in that order and the file is indented, so two runs diff line by line. Numbers are
 * rounded to what is worth reading (latencies to the microsecond, hit rate to 4 decimals,
 * throughput to 2) and written in plain notation, so noise below that does not show up as a change.
 * A value that is unknown ({@code hit_rate} of a live run) or not finite is {@code null}: JSON has
 * no NaN. The raw samples and the timeline stay out; they are for the HTML report.
 */
public final class ResultsJson {
  private static final int LATENCY_DECIMALS = 3;
  private static final int HIT_RATE_DECIMALS = 4;
  private static final int THROUGHPUT_DECIMALS = 2;

  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
          .build();

  private ResultsJson() {}

  /** Writes {@link #toJson} to {@code file} in UTF-8, replacing it. */
  public static void write(RunReport report, Path file) {
    try {
      Files.writeString(file, toJson(report), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /** The report as indented JSON, ending with a newline. */
  public static String toJson(RunReport report) {
    ObjectNode root = MAPPER.createObjectNode();
    ObjectNode run = root.putObject("run");
    run.put("title", report.title());
    ObjectNode settings = run.putObject("settings");
    report.settings().forEach(settings::put);
    ArrayNode policies = root.putArray("policies");
    for (PolicyRun policy : report.policies()) {
      policies.add(policyNode(policy));
    }
    try {
      return MAPPER.writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode a JSON tree", e);
    }
  }

  private static ObjectNode policyNode(PolicyRun run) {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("policy", run.policy());
    node.put("requests", run.requests());
    node.put("hit_rate", rounded(run.hitRate(), HIT_RATE_DECIMALS));
    ObjectNode ttft = node.putObject("ttft_ms");
    ttft.put("mean", latency(run.ttftMs().mean()));
    ttft.put("p50", latency(run.ttftMs().p50()));
    ttft.put("p90", latency(run.ttftMs().p90()));
    ttft.put("p99", latency(run.ttftMs().p99()));
    meanAndP99(node.putObject("itl_ms"), run.itlMs());
    meanAndP99(node.putObject("e2e_ms"), run.e2eMs());
    node.put("output_tokens_per_s", rounded(run.outputTokensPerS(), THROUGHPUT_DECIMALS));
    node.put("max_queue", run.maxQueue());
    return node;
  }

  private static void meanAndP99(ObjectNode node, Latency latency) {
    node.put("mean", latency(latency.mean()));
    node.put("p99", latency(latency.p99()));
  }

  private static BigDecimal latency(double ms) {
    return rounded(ms, LATENCY_DECIMALS);
  }

  /**
   * {@code value} rounded half-up to {@code decimals}, without trailing zeros; null for null, NaN
   * and infinities. Jackson writes a null {@link BigDecimal} as JSON {@code null}.
   */
  static BigDecimal rounded(Double value, int decimals) {
    if (value == null || !Double.isFinite(value)) {
      return null;
    }
    BigDecimal exact = BigDecimal.valueOf(value).setScale(decimals, RoundingMode.HALF_UP);
    return exact.signum() == 0 ? BigDecimal.ZERO : exact.stripTrailingZeros();
  }
}
