package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.testing.Http;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Stopping the router: /live turns 503 at once, while a stream in flight still finishes. */
class GracefulShutdownIT {

  @Test
  void streamInFlight_finishesWhileLiveAnswers503() throws Exception {
    RouterFixture router =
        RouterFixture.start(
            Map.of(
                "mock-workers", List.of("1"),
                "mock-ttft-ms", List.of("0"),
                // a 10 s stream (100 tokens, 100 ms apart): stop() comes while it is in flight
                // unless the machine stalls for seconds, which the check below reports as such
                "mock-itl-ms", List.of("100"),
                "http-graceful-shutdown-timeout-secs", List.of("120")));
    try {
      CompletableFuture<HttpResponse<java.util.stream.Stream<String>>> streaming =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .build()
              .sendAsync(
                  HttpRequest.newBuilder(URI.create(router.baseUrl + "/v1/chat/completions"))
                      .header("content-type", "application/json")
                      .POST(
                          HttpRequest.BodyPublishers.ofString(
                              "{\"model\":\"mock-model\",\"stream\":true,\"max_tokens\":100,"
                                  + "\"messages\":[{\"role\":\"user\",\"content\":\"bye\"}]}"))
                      .build(),
                  HttpResponse.BodyHandlers.ofLines());
      HttpResponse<java.util.stream.Stream<String>> response = streaming.get(30, TimeUnit.SECONDS);
      assertThat(response.statusCode()).isEqualTo(200);

      assertThat(router.app.routerWorkers().get(0).activeRequests())
          .as("the stream is still in flight when the router stops")
          .isEqualTo(1);
      var stopped = router.app.stop();
      assertThat(Http.get(router.baseUrl + "/live").status()).isEqualTo(503);
      assertThat(Http.get(router.baseUrl + "/health").status()).isEqualTo(503);

      List<String> events =
          response.body().filter(l -> l.startsWith("data: ")).collect(Collectors.toList());
      assertThat(events.get(events.size() - 1)).isEqualTo("data: [DONE]");
      assertThat(events.get(events.size() - 2)).contains("\"finish_reason\":\"length\"");
      stopped.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertThat(router.detector.blockedThreads()).isEmpty();
    } finally {
      router.close();
    }
  }
}
