package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code router.jar bench}'s options and its answers to bad input, without a router. */
class BenchCommandTest {
  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private OptionalInt run(String... args) {
    return Cli.run(args, Map.of(), new PrintWriter(out, true), new PrintWriter(err, true));
  }

  private Path trace() throws IOException {
    Path trace = dir.resolve("trace.jsonl");
    Files.writeString(
        trace,
        "{\"timestamp\": 0, \"input_length\": 8, \"output_length\": 2, \"hash_ids\": [1]}\n");
    return trace;
  }

  @Test
  void help_explainsEveryOption() {
    assertThat(run("bench", "--help")).hasValue(0);
    assertThat(out.toString())
        .contains(
            "--url",
            "--trace",
            "--rate-scale",
            "--duration",
            "--out",
            "--label",
            "--model",
            "--token-range",
            "--timeout",
            "--interval",
            "--connections",
            "--allow-failures")
        .contains("bench-results");
  }

  @Test
  void routerHelp_listsTheBenchCommand() {
    assertThat(run("--help")).hasValue(0);
    assertThat(out.toString()).contains("bench ");
  }

  @Test
  void missingTrace_exitsTwoNamingTheFile() {
    assertThat(
            run(
                "bench",
                "--url",
                "http://127.0.0.1:1",
                "--trace",
                dir.resolve("no.jsonl").toString(),
                "--out",
                dir.resolve("out").toString()))
        .hasValue(2);
    assertThat(err.toString()).contains("trace file not found").contains("no.jsonl");
  }

  @Test
  void missingUrl_exitsTwo() throws IOException {
    assertThat(run("bench", "--trace", trace().toString())).hasValue(2);
    assertThat(err.toString()).contains("--url");
  }

  @Test
  void badUrl_exitsTwo() throws IOException {
    String trace = trace().toString();
    assertThat(run("bench", "--url", "localhost:8000", "--trace", trace)).hasValue(2);
    assertThat(err.toString()).contains("--url").contains("http://127.0.0.1:8000");
    assertThat(run("bench", "--url", "http://bad host", "--trace", trace)).hasValue(2);
    assertThat(err.toString()).contains("is not a URL");
  }

  @Test
  void rateScaleOfZeroOrText_exitsTwo() throws IOException {
    String trace = trace().toString();
    assertThat(run("bench", "--url", "http://127.0.0.1:1", "--trace", trace, "--rate-scale", "0"))
        .hasValue(2);
    assertThat(err.toString()).contains("--rate-scale must be a number above 0");
    assertThat(run("bench", "--url", "http://127.0.0.1:1", "--trace", trace, "--rate-scale", "x"))
        .hasValue(2);
  }

  @Test
  void badTokenRangeOrTimeout_exitsTwo() throws IOException {
    String trace = trace().toString();
    assertThat(run("bench", "--url", "http://127.0.0.1:1", "--trace", trace, "--token-range", "5"))
        .hasValue(2);
    assertThat(err.toString()).contains("--token-range must be FIRST:COUNT");
    assertThat(run("bench", "--url", "http://127.0.0.1:1", "--trace", trace, "--timeout", "0"))
        .hasValue(2);
    assertThat(err.toString()).contains("--timeout");
  }

  @Test
  void unreachableRouter_exitsOneNamingIt() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    String url = "http://127.0.0.1:" + port;
    assertThat(
            run(
                "bench",
                "--url",
                url,
                "--trace",
                trace().toString(),
                "--out",
                dir.resolve("out").toString()))
        .hasValue(1);
    assertThat(err.toString()).contains("cannot list the models at " + url);
  }
}
