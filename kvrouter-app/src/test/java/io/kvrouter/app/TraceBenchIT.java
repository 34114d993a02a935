package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvrouter.common.Ticker;
import io.kvrouter.tools.bench.BenchResult;
import io.kvrouter.tools.bench.BenchSettings;
import io.kvrouter.tools.bench.RequestResult;
import io.kvrouter.tools.bench.TraceBench;
import io.kvrouter.tools.report.PolicyRun;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code router.jar bench} against a real KV router with two simulated workers on loopback: a small
 * hand-made trace (prompts of 600 to 3000 tokens in four families sharing a two-block prefix, 5 to
 * 20 output tokens) replayed through the command line and through {@link TraceBench}, over real
 * HTTP streams.
 */
class TraceBenchIT {
  private static final int REQUESTS = 36;

  @TempDir static Path dir;
  private static RouterFixture router;
  private static Path trace;
  private static int outputTokens;

  @BeforeAll
  static void start() throws Exception {
    router =
        RouterFixture.start(
            Map.of(
                "router-mode", List.of("kv"),
                "mock-workers", List.of("2"),
                "mock-ttft-ms", List.of("5"),
                "mock-itl-ms", List.of("2")));
    trace = dir.resolve("trace.jsonl");
    Files.write(trace, traceLines());
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      assertThat(router.detector.blockedThreads()).as("blocked event loops").isEmpty();
    } finally {
      router.close();
    }
  }

  /** One request every 40 ms; each family shares its first two 512-token blocks. */
  private static List<String> traceLines() {
    SplittableRandom random = new SplittableRandom(7);
    List<String> lines = new ArrayList<>();
    long nextId = 1000;
    for (int i = 0; i < REQUESTS; i++) {
      int input = random.nextInt(600, 3001);
      int output = random.nextInt(5, 21);
      outputTokens += output;
      int family = i % 4;
      List<Long> ids = new ArrayList<>(List.of(family * 10L, family * 10L + 1));
      while (ids.size() < (input + 511) / 512) {
        ids.add(nextId++);
      }
      lines.add(
          String.format(
              "{\"timestamp\": %d, \"input_length\": %d, \"output_length\": %d, \"hash_ids\": %s}",
              i * 40, input, output, ids.toString()));
    }
    return lines;
  }

  private static OptionalInt bench(StringWriter out, StringWriter err, String... options) {
    List<String> args =
        new ArrayList<>(List.of("bench", "--url", router.baseUrl, "--trace", trace.toString()));
    args.addAll(List.of(options));
    return Cli.run(
        args.toArray(String[]::new),
        Map.of(),
        new PrintWriter(out, true),
        new PrintWriter(err, true));
  }

  @Test
  void commandLine_replaysEveryRequestAndWritesResults() throws IOException {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    Path results = dir.resolve("cli");

    assertThat(bench(out, err, "--out", results.toString(), "--interval", "0.2"))
        .as(err.toString())
        .hasValue(0);

    assertThat(out.toString()).contains("TTFT (ms)").containsPattern("(?m)^kv +" + REQUESTS + " ");
    assertThat(err.toString()).contains("label kv").contains("prompt token ids 0..255");
    JsonNode json = new ObjectMapper().readTree(results.resolve("results.json").toFile());
    assertThat(json.findValues("requests")).first().extracting(JsonNode::asInt).isEqualTo(REQUESTS);
  }

  @Test
  void traceBench_measuresEveryRequestFromTheClientSide() {
    BenchSettings settings =
        new BenchSettings(
            List.of(URI.create(router.baseUrl)),
            trace,
            1.5,
            null,
            Duration.ofSeconds(120),
            Duration.ofMillis(200),
            8,
            null,
            null,
            null);

    BenchResult result =
        TraceBench.run(settings, new PrintWriter(new StringWriter(), true), Ticker.SYSTEM);

    assertThat(result.failed()).as(String.join("\n", result.errors())).isZero();
    assertThat(result.completed())
        .extracting(RequestResult::index)
        .containsExactlyElementsOf(java.util.stream.IntStream.range(0, REQUESTS).boxed().toList());
    assertThat(result.completed().stream().mapToInt(RequestResult::outputTokens).sum())
        .isEqualTo(outputTokens);
    assertThat(result.completed())
        .allSatisfy(r -> assertThat(r.ttftMs()).isPositive().isLessThanOrEqualTo(r.e2eMs()));
    PolicyRun run = result.report().policies().get(0);
    assertThat(run.policy()).isEqualTo("kv");
    assertThat(run.requests()).isEqualTo(REQUESTS);
    assertThat(run.hitRate()).isNotNull().isGreaterThan(0).isLessThanOrEqualTo(1);
    assertThat(run.maxQueue()).isBetween(1, REQUESTS);
    assertThat(run.itlMs().mean()).isPositive();
    assertThat(run.timeline().workers()).containsExactly("mock-1", "mock-2");
    assertThat(result.report().settings())
        .containsEntry("requests sent", String.valueOf(REQUESTS))
        .containsEntry("requests failed", "0");
  }

  @Test
  void failedRequests_areReportedAndMakeTheExitCodeOne() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    // ids 200..299: most prompts hold one outside the demo tokenizer's 256, which the router
    // refuses
    String[] options = {
      "--out", dir.resolve("failing").toString(), "--token-range", "200:100", "--duration", "0.2"
    };

    assertThat(bench(out, err, options)).hasValue(1);
    assertThat(err.toString())
        .contains("5 of 5 requests failed")
        .contains("request #0: HTTP 400")
        .contains("outside the vocabulary");

    List<String> allowed = new ArrayList<>(List.of(options));
    allowed.add("--allow-failures");
    assertThat(bench(new StringWriter(), new StringWriter(), allowed.toArray(String[]::new)))
        .hasValue(0);
  }

  @Test
  void aFleetOfRouters_takesTheRequestsInTurn_andReadsAsOne() throws Exception {
    try (RouterFixture second =
        RouterFixture.start(
            Map.of(
                "router-mode", List.of("kv"),
                "mock-workers", List.of("2"),
                "mock-ttft-ms", List.of("5"),
                "mock-itl-ms", List.of("2")))) {
      double firstBefore = requestsServed(router);
      double[] hitsBefore = {hitSum(router) + hitSum(second), hitCount(router) + hitCount(second)};
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      Path results = dir.resolve("fleet");

      assertThat(
              bench(
                  out,
                  err,
                  "--url",
                  second.baseUrl,
                  "--out",
                  results.toString(),
                  "--interval",
                  "0.2"))
          .as(err.toString())
          .hasValue(0);

      assertThat(requestsServed(router) - firstBefore).isEqualTo(REQUESTS / 2);
      assertThat(requestsServed(second)).isEqualTo(REQUESTS / 2);
      assertThat(err.toString()).contains("to " + router.baseUrl + ", " + second.baseUrl);
      JsonNode json = new ObjectMapper().readTree(results.resolve("results.json").toFile());
      assertThat(json.findValues("requests"))
          .first()
          .extracting(JsonNode::asInt)
          .isEqualTo(REQUESTS);
      // the hit rate is both routers' summaries added
      double hits = hitSum(router) + hitSum(second) - hitsBefore[0];
      double routed = hitCount(router) + hitCount(second) - hitsBefore[1];
      assertThat(routed).isEqualTo(REQUESTS);
      assertThat(json.findValues("hit_rate").get(0).asDouble())
          .isCloseTo(hits / routed, org.assertj.core.data.Offset.offset(1e-4));
    }
  }

  private static double requestsServed(RouterFixture router) throws Exception {
    return metric(router, "dynamo_frontend_requests_total");
  }

  private static double hitSum(RouterFixture router) throws Exception {
    return metric(router, "kvrouter_router_kv_hit_rate_sum");
  }

  private static double hitCount(RouterFixture router) throws Exception {
    return metric(router, "kvrouter_router_kv_hit_rate_count");
  }

  private static double metric(RouterFixture router, String name) throws Exception {
    return io.kvrouter.testing.Prometheus.sum(
        io.kvrouter.testing.Http.get(router.baseUrl + "/metrics").body(), name);
  }
}
