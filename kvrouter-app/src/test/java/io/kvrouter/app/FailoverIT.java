package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.WorkerStatus;
import io.kvrouter.testing.Http;
import io.kvrouter.testing.WorkerProcess;
import io.vertx.core.json.JsonObject;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** Workers that die or never existed: clients keep being served while any worker is healthy. */
class FailoverIT {
  private static final String CHAT =
      "{\"model\":\"mock-model\",\"max_tokens\":4,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

  @Test
  void deadWorker_isPassedOverWithoutClientErrors() throws Exception {
    try (WorkerProcess survivor = WorkerProcess.start("mock-model", 0, 0);
        WorkerProcess victim = WorkerProcess.start("mock-model", 0, 0);
        RouterFixture router =
            RouterFixture.start(
                RouterFixture.workers(
                    victim.workerSpec("victim"), survivor.workerSpec("survivor")))) {
      assertThat(Http.post(router.baseUrl + "/v1/chat/completions", CHAT).status()).isEqualTo(200);
      victim.close();

      for (int i = 0; i < 10; i++) {
        Http.Response response = Http.post(router.baseUrl + "/v1/chat/completions", CHAT);
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        assertThat(
                response
                    .json()
                    .getJsonArray("choices")
                    .getJsonObject(0)
                    .getJsonObject("message")
                    .getString("content"))
            .hasSize(4);
      }
      assertThat(router.app.routerWorkers())
          .extracting(WorkerStatus::id, WorkerStatus::healthy)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple("victim", false),
              org.assertj.core.groups.Tuple.tuple("survivor", true));
      assertThat(Http.get(router.baseUrl + "/health").status()).isEqualTo(200);
      assertThat(router.detector.blockedThreads()).isEmpty();
    }
  }

  @Test
  void noHealthyWorker_is503WithAnOpenAiErrorAndUnhealthy() throws Exception {
    int deadPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      deadPort = socket.getLocalPort();
    }
    try (RouterFixture router =
        RouterFixture.start(RouterFixture.workers("id=gone,address=127.0.0.1:" + deadPort))) {
      Http.Response response = Http.post(router.baseUrl + "/v1/chat/completions", CHAT);
      assertThat(response.status()).isEqualTo(503);
      JsonObject error = response.json().getJsonObject("error");
      assertThat(error.getString("type")).isEqualTo("service_unavailable");
      assertThat(error.getString("message")).isNotBlank();
      Http.Response health = Http.get(router.baseUrl + "/health");
      assertThat(health.status()).isEqualTo(503);
      assertThat(health.json().getString("status")).isEqualTo("unhealthy");
      assertThat(router.app.routerWorkers())
          .extracting(WorkerStatus::healthy)
          .containsExactly(false);
    }
  }
}
