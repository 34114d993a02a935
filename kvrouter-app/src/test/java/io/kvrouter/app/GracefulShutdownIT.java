package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.testing.Http;
import io.kvrouter.testing.WorkerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Stopping the router: /live turns 503 at once, a stream in flight still finishes, and one the
 * grace period cuts ends with an error that says the router is shutting down.
 */
class GracefulShutdownIT {

  @Test
  void streamInFlight_finishesWhileLiveAnswers503() throws Exception {
    // the worker is its own process, stopped (SIGSTOP) once the stream has begun: the stream is
    // surely in flight when the router stops, however slow the machine, and ends once it resumes
    WorkerProcess worker = WorkerProcess.start("mock-model", 0, 10);
    RouterFixture router = null;
    try {
      Map<String, List<String>> flags = RouterFixture.workers(worker.workerSpec("w0"));
      flags.put("http-graceful-shutdown-timeout-secs", List.of("120"));
      router = RouterFixture.start(flags);
      HttpResponse<Stream<String>> response = startStream(router, 100);
      Iterator<String> lines = response.body().iterator();
      List<String> events = new ArrayList<>();
      events.add(nextEvent(lines)); // the first token is out: the stream is running
      worker.suspend();

      assertThat(router.app.routerWorkers().get(0).activeRequests())
          .as("the stream is in flight when the router stops")
          .isEqualTo(1);
      var stopped = router.app.stop();
      assertThat(Http.get(router.baseUrl + "/live").status()).isEqualTo(503);
      assertThat(Http.get(router.baseUrl + "/health").status()).isEqualTo(503);
      assertThat(stopped.isComplete()).as("the router waits for the stream").isFalse();

      worker.resume();
      lines.forEachRemaining(
          line -> {
            if (line.startsWith("data: ")) {
              events.add(line);
            }
          });
      assertThat(events.get(events.size() - 1)).isEqualTo("data: [DONE]");
      assertThat(events.get(events.size() - 2)).contains("\"finish_reason\":\"length\"");
      stopped.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertThat(router.detector.blockedThreads()).isEmpty();
    } finally {
      if (router != null) {
        router.close();
      }
      worker.close();
    }
  }

  /** The next {@code data:} line of a stream. */
  private static String nextEvent(Iterator<String> lines) {
    while (lines.hasNext()) {
      String line = lines.next();
      if (line.startsWith("data: ")) {
        return line;
      }
    }
    throw new AssertionError("the stream ended before its first event");
  }

  @Test
  void streamCutAtTheGraceDeadline_endsWithAShuttingDownError() throws Exception {
    RouterFixture router =
        RouterFixture.start(
            Map.of(
                "mock-workers", List.of("1"),
                "mock-ttft-ms", List.of("0"),
                // 1,000 tokens 100 ms apart: far longer than the 1 s grace period
                "mock-itl-ms", List.of("100"),
                "http-graceful-shutdown-timeout-secs", List.of("1")));
    try {
      HttpResponse<Stream<String>> response = startStream(router, 1000);

      router.app.stop().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);

      List<String> events =
          response.body().filter(l -> l.startsWith("data: ")).collect(Collectors.toList());
      String last = events.get(events.size() - 1);
      assertThat(last)
          .as("the last event is an error that blames the shutdown, not the worker")
          .contains("\"code\":\"router_shutting_down\"")
          .contains("The router is shutting down")
          .doesNotContain("worker");
      assertThat(events).noneMatch(e -> e.contains("finish_reason\":\"length"));
    } finally {
      router.close();
    }
  }

  /** Starts a streamed chat of {@code maxTokens} tokens; its response once the head arrived. */
  private static HttpResponse<Stream<String>> startStream(RouterFixture router, int maxTokens)
      throws Exception {
    HttpResponse<Stream<String>> response =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .build()
            .sendAsync(
                HttpRequest.newBuilder(URI.create(router.baseUrl + "/v1/chat/completions"))
                    .header("content-type", "application/json")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"model\":\"mock-model\",\"stream\":true,\"max_tokens\":"
                                + maxTokens
                                + ",\"messages\":[{\"role\":\"user\",\"content\":\"bye\"}]}"))
                    .build(),
                HttpResponse.BodyHandlers.ofLines())
            .get(30, TimeUnit.SECONDS);
    assertThat(response.statusCode()).isEqualTo(200);
    return response;
  }
}
