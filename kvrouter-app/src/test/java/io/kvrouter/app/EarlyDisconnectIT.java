package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvrouter.testing.Http;
import io.kvrouter.testing.Prometheus;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Requests that end early: a client gone before the first token, and requests rejected during
 * preprocessing. The worker frees what was cancelled and the in-flight gauge returns to zero.
 */
class EarlyDisconnectIT {
  private static RouterFixture router;

  @BeforeAll
  static void start() throws Exception {
    router =
        RouterFixture.start(
            Map.of(
                "mock-workers", List.of("1"),
                // the first token never comes while a test looks: only the client ends a request
                "mock-ttft-ms", List.of("600000"),
                "mock-itl-ms", List.of("10")));
  }

  @AfterAll
  static void stop() throws Exception {
    assertThat(router.detector.blockedThreads()).isEmpty();
    router.close();
  }

  private static double inflight() throws Exception {
    return Prometheus.sum(
        Http.get(router.baseUrl + "/metrics").body(), "dynamo_frontend_inflight_requests");
  }

  @Test
  void clientGoneBeforeTheFirstToken_cancelsAtTheWorker() throws Exception {
    String body =
        "{\"model\":\"mock-model\",\"stream\":true,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"slow start\"}]}";
    try (Socket socket = Http.openPost(router.app.httpPort(), "/v1/chat/completions", body)) {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> router.app.mockEngines().get(0).activeRequests() == 1);
    }
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              assertThat(router.app.mockEngines().get(0).cancelledRequests()).isEqualTo(1);
              assertThat(router.app.mockEngines().get(0).activeRequests()).isZero();
              assertThat(router.app.routerWorkers().get(0).activeRequests()).isZero();
              assertThat(inflight()).isZero();
            });
  }

  @Test
  void requestsRejectedDuringPreprocessing_leaveNothingInFlight() throws Exception {
    Http.Response empty =
        Http.post(router.baseUrl + "/v1/completions", "{\"model\":\"mock-model\",\"prompt\":\"\"}");
    assertThat(empty.status()).isEqualTo(400);
    assertThat(empty.json().getJsonObject("error").getString("param")).isEqualTo("prompt");
    assertThat(inflight()).isZero();
  }
}
