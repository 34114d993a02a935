package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.completions.CompletionUsage;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.WorkerStatus;
import io.kvrouter.testing.Http;
import io.kvrouter.testing.Prometheus;
import io.kvrouter.testing.WorkerProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code --migration-limit} end to end: a worker process killed (SIGKILL) while streams are in
 * flight on it, and every stream still completes for its OpenAI client with exactly the tokens it
 * asked for, continued on the other workers.
 */
class MigrationIT {
  private static final String MODEL = "mock-model";
  private static final int STREAMS = 20;
  private static final int MAX_TOKENS = 60;

  /** What one client saw of its stream. */
  private record Seen(String content, int logprobs, String finishReason, CompletionUsage usage) {}

  @Test
  void killingAWorkerMidStream_everyStreamCompletesOnTheOthers() throws Exception {
    // 100 ms between tokens: a 60-token stream takes 6 s, so streams are surely mid-way when the
    // kill comes right after each has its first token (the check below reports a slower machine)
    try (WorkerProcess w1 = WorkerProcess.start(MODEL, 0, 100);
        WorkerProcess w2 = WorkerProcess.start(MODEL, 0, 100);
        WorkerProcess victim = WorkerProcess.start(MODEL, 0, 100)) {
      Map<String, List<String>> flags =
          RouterFixture.workers(
              w1.workerSpec("w1"), w2.workerSpec("w2"), victim.workerSpec("victim"));
      flags.put("migration-limit", List.of("3"));
      try (RouterFixture router = RouterFixture.start(flags)) {
        OpenAIClient client =
            OpenAIOkHttpClient.builder()
                .baseUrl(router.baseUrl + "/v1")
                .apiKey("not-used")
                .maxRetries(0)
                .build();
        long promptTokens =
            client
                .chat()
                .completions()
                .create(chat(0).toBuilder().maxCompletionTokens(1).build())
                .usage()
                .orElseThrow()
                .promptTokens();

        ExecutorService clients = Executors.newFixedThreadPool(STREAMS);
        CountDownLatch everyStreamHasAToken = new CountDownLatch(STREAMS);
        List<AtomicInteger> received = new ArrayList<>();
        try {
          List<Future<Seen>> streams = new ArrayList<>();
          for (int i = 1; i <= STREAMS; i++) {
            int stream = i;
            AtomicInteger tokens = new AtomicInteger();
            received.add(tokens);
            streams.add(
                clients.submit(() -> consume(client, stream, tokens, everyStreamHasAToken)));
          }
          assertThat(everyStreamHasAToken.await(120, TimeUnit.SECONDS))
              .as("every stream got its first token")
              .isTrue();
          int onVictim = workerStatus(router, "victim").activeRequests();
          victim.kill();
          assertThat(received)
              .as(
                  "no stream had finished when the worker was killed (else this machine took"
                      + " over 6 s for a few steps)")
              .allSatisfy(tokens -> assertThat(tokens.get()).isLessThan(MAX_TOKENS));

          List<Seen> seen = new ArrayList<>();
          for (Future<Seen> stream : streams) {
            seen.add(stream.get(120, TimeUnit.SECONDS));
          }
          assertThat(onVictim).as("streams in flight on the killed worker").isPositive();
          for (Seen s : seen) {
            assertThat(s.finishReason()).isEqualTo("length");
            // the mock model's tokens are one character each: no token lost or repeated
            assertThat(s.content()).hasSize(MAX_TOKENS);
            assertThat(s.logprobs()).isEqualTo(MAX_TOKENS);
            assertThat(s.usage().completionTokens()).isEqualTo(MAX_TOKENS);
            assertThat(s.usage().promptTokens()).isEqualTo(promptTokens);
          }
          String metrics = Http.get(router.baseUrl + "/metrics").body();
          assertThat(
                  Prometheus.sum(
                      metrics,
                      MetricNames.MODEL_MIGRATION + "_total",
                      Map.of("model", MODEL, "migration_type", "ongoing_request")))
              .as("one migration per stream that was on the killed worker")
              .isEqualTo(onVictim);
          assertThat(workerStatus(router, "victim").healthy()).isFalse();
          assertThat(router.app.routerWorkers())
              .extracting(WorkerStatus::activeRequests)
              .containsOnly(0);
          assertThat(router.detector.blockedThreads()).isEmpty();
        } finally {
          clients.shutdownNow();
        }
      }
    }
  }

  /** A chat request whose prompt has the same length for every {@code stream} (two digits). */
  private static ChatCompletionCreateParams chat(int stream) {
    return ChatCompletionCreateParams.builder()
        .model(MODEL)
        .addUserMessage(String.format("Tell story %02d", stream))
        .maxCompletionTokens(MAX_TOKENS)
        .logprobs(true)
        .putAdditionalBodyProperty("ignore_eos", JsonValue.from(true))
        .build();
  }

  /**
   * Reads stream {@code stream} to its end, counting its tokens (one logprob each) in {@code
   * received} as they come, and counting down {@code firstToken} at the first.
   */
  private static Seen consume(
      OpenAIClient client, int stream, AtomicInteger received, CountDownLatch firstToken) {
    StringBuilder content = new StringBuilder();
    String finishReason = null;
    CompletionUsage usage = null;
    ChatCompletionCreateParams params =
        chat(stream).toBuilder()
            .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build())
            .build();
    try (StreamResponse<ChatCompletionChunk> chunks =
        client.chat().completions().createStreaming(params)) {
      for (ChatCompletionChunk chunk : (Iterable<ChatCompletionChunk>) chunks.stream()::iterator) {
        for (ChatCompletionChunk.Choice choice : chunk.choices()) {
          choice.delta().content().ifPresent(content::append);
          int tokens =
              choice
                  .logprobs()
                  .flatMap(ChatCompletionChunk.Choice.Logprobs::content)
                  .map(List::size)
                  .orElse(0);
          if (tokens > 0 && received.getAndAdd(tokens) == 0) {
            firstToken.countDown();
          }
          if (choice.finishReason().isPresent()) {
            finishReason = choice.finishReason().get().asString();
          }
        }
        if (chunk.usage().isPresent()) {
          usage = chunk.usage().get();
        }
      }
    }
    return new Seen(content.toString(), received.get(), finishReason, usage);
  }

  private static WorkerStatus workerStatus(RouterFixture router, String id) {
    return router.app.routerWorkers().stream()
        .filter(w -> w.id().equals(id))
        .findFirst()
        .orElseThrow();
  }
}
