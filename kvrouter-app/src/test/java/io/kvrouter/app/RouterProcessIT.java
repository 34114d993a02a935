package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.testing.WorkerProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code java -jar target/router.jar} as a user runs it: the README's demo and its exit codes. */
class RouterProcessIT {

  @Test
  void readmeDemo_mockWorkersServeAStreamedChat() throws Exception {
    int port = freePort();
    Process router = startDemoRouter(port);
    try {
      String line = awaitLine(output(router), "kvrouter serving model");
      assertThat(line).as("router did not start").isNotNull().contains("2 worker(s)");

      HttpResponse<java.util.stream.Stream<String>> response =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .build()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                      .header("content-type", "application/json")
                      .POST(
                          HttpRequest.BodyPublishers.ofString(
                              "{\"model\":\"mock-model\",\"stream\":true,"
                                  + "\"messages\":[{\"role\":\"user\",\"content\":\"Hello!\"}]}"))
                      .build(),
                  HttpResponse.BodyHandlers.ofLines());
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.headers().firstValue("content-type")).hasValue("text/event-stream");
      List<String> events =
          response.body().filter(l -> l.startsWith("data: ")).collect(Collectors.toList());
      assertThat(events.get(0))
          .contains("\"object\":\"chat.completion.chunk\"")
          .contains("\"role\":\"assistant\"");
      assertThat(events.get(events.size() - 2)).contains("\"finish_reason\":\"stop\"");
      assertThat(events.get(events.size() - 1)).isEqualTo("data: [DONE]");
      assertThat(events.size()).isGreaterThan(10);
    } finally {
      router.destroy();
      assertThat(router.waitFor(20, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void sigterm_drainsTheRouterAndExitsZero() throws Exception {
    Process router = startDemoRouter(freePort());
    try {
      BufferedReader output = output(router);
      awaitLine(output, "kvrouter serving model");
      WorkerProcess.sigterm(router);
      String rest = output.lines().collect(Collectors.joining("\n"));
      assertThat(router.waitFor(60, TimeUnit.SECONDS)).as("exited").isTrue();
      assertThat(router.exitValue()).as("exit status after a clean drain\n" + rest).isZero();
      assertThat(rest)
          .contains("SIGTERM received: the router is shutting down")
          .contains("every request finished; closing")
          .contains("stopped");
    } finally {
      router.destroyForcibly();
    }
  }

  @Test
  void sigterm_stopsAWorkerWithExitStatusZero() throws Exception {
    WorkerProcess worker = WorkerProcess.start("mock-model", 0, 0);
    try {
      assertThat(worker.terminate()).as(worker.recentOutput(20)).isZero();
    } finally {
      worker.close();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static Process startDemoRouter(int port) throws IOException {
    return new ProcessBuilder(
            WorkerProcess.javaBinary(),
            "-jar",
            WorkerProcess.routerJar().toString(),
            "--mock-workers",
            "2",
            "--http-host",
            "127.0.0.1",
            "--http-port",
            String.valueOf(port))
        .redirectErrorStream(true)
        .start();
  }

  private static BufferedReader output(Process process) {
    return new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
  }

  /** Reads {@code log} up to the first line containing {@code text}; that line. */
  private static String awaitLine(BufferedReader log, String text) throws IOException {
    String line;
    while ((line = log.readLine()) != null && !line.contains(text)) {
      // not yet
    }
    assertThat(line).as("the process never printed: " + text).isNotNull();
    return line;
  }

  @Test
  void invalidSetting_exitsTwoWithAMessageNamingIt(@TempDir Path dir) throws Exception {
    Path output = dir.resolve("router.out");
    Process process =
        new ProcessBuilder(
                WorkerProcess.javaBinary(),
                "-jar",
                WorkerProcess.routerJar().toString(),
                "--mock-workers",
                "1",
                "--router-mode",
                "sticky")
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    boolean exited = process.waitFor(30, TimeUnit.SECONDS);
    if (!exited) {
      process.destroyForcibly();
    }
    assertThat(exited).as("the router exits on an invalid setting").isTrue();
    assertThat(process.exitValue()).isEqualTo(2);
    assertThat(Files.readString(output))
        .contains("--router-mode")
        .contains("'sticky'")
        .contains("kv, approx, round-robin, random, least-loaded, power-of-two, sglang");
  }
}
