package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.kvrouter.testing.WorkerProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One router in front of a mixed fleet, as real processes: a worker that speaks the call-home
 * response stream only (as Dynamo v1.5) and one that speaks {@code tcp_response_mux_v1} only (as
 * Dynamo's latest main), each asked its own way through {@code response-stream=} in {@code
 * --worker}. The mux worker carries its many responses on a handful of pooled connections.
 */
class ResponseMuxIT {
  private static final String MODEL = "mock-model";
  private static final String CONNECTIONS = "kvrouter_worker_response_connections_opened_total";
  private static final int REQUESTS = 50;
  private static WorkerProcess callHome;
  private static WorkerProcess mux;
  private static RouterFixture router;
  private static OpenAIClient client;

  @BeforeAll
  static void start() throws Exception {
    callHome =
        WorkerProcess.start(
            MODEL, 5, 2, List.of("--port", "0", "--accept-response-stream", "call-home"));
    mux =
        WorkerProcess.start(MODEL, 5, 2, List.of("--port", "0", "--accept-response-stream", "mux"));
    router =
        RouterFixture.start(
            RouterFixture.workers(
                callHome.workerSpec("v15"), mux.workerSpec("v17") + ",response-stream=mux"));
    client =
        OpenAIOkHttpClient.builder()
            .baseUrl(router.baseUrl + "/v1")
            .apiKey("not-used")
            .maxRetries(0)
            .build();
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      assertThat(router.detector.blockedThreads()).as("blocked event loops").isEmpty();
    } finally {
      router.close();
      callHome.close();
      mux.close();
    }
  }

  @Test
  void chatsGoToBothWorkers_andTheMuxWorkerUsesAFewConnections() throws Exception {
    ExecutorService clients = Executors.newFixedThreadPool(10);
    List<Future<ChatCompletion>> answers = new ArrayList<>();
    try {
      for (int i = 0; i < REQUESTS; i++) {
        String prompt = "count to " + i;
        answers.add(
            clients.submit(
                () ->
                    client
                        .chat()
                        .completions()
                        .create(
                            ChatCompletionCreateParams.builder()
                                .model(MODEL)
                                .addUserMessage(prompt)
                                .maxCompletionTokens(8)
                                .build())));
      }
      for (Future<ChatCompletion> answer : answers) {
        ChatCompletion completion = answer.get(60, TimeUnit.SECONDS);
        assertThat(completion.choices().get(0).message().content().orElseThrow()).isNotEmpty();
        assertThat(completion.choices().get(0).finishReason().asString()).isEqualTo("length");
      }
    } finally {
      clients.shutdownNow();
    }

    // round robin: half the requests each; one call-home connection per response, a handful of
    // pooled connections for all of the mux worker's
    double callHomes = callHome.metric(CONNECTIONS, Map.of("transport", "tcp_server"));
    double muxConnections = mux.metric(CONNECTIONS, Map.of("transport", "tcp_response_mux_v1"));
    assertThat(callHomes).isEqualTo(REQUESTS / 2.0);
    assertThat(callHome.metric(CONNECTIONS, Map.of("transport", "tcp_response_mux_v1"))).isZero();
    assertThat(mux.metric(CONNECTIONS, Map.of("transport", "tcp_server"))).isZero();
    assertThat(muxConnections).isBetween(1.0, 4.0);
  }
}
