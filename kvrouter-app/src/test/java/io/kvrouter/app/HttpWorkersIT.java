package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kvrouter.testing.Http;
import io.kvrouter.testing.WorkerProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The router in front of {@code router.jar worker --api openai} processes, which serve vLLM's
 * token-in HTTP API and publish vLLM's ZMQ KV events, as a {@code vllm serve} does ({@code --worker
 * id=…,url=http://HOST:PORT,kv-events=…}): the whole OpenAI surface through them, KV routing on
 * their events, a client that goes away cancelling upstream, a worker killed mid-stream, and a
 * fleet mixing them with a Dynamo worker.
 */
class HttpWorkersIT {
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  private final List<AutoCloseable> closers = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable closer : closers) {
      closer.close();
    }
  }

  private WorkerProcess vllm(int itlMs) throws Exception {
    WorkerProcess worker =
        WorkerProcess.start(
            "m",
            5,
            itlMs,
            List.of(
                "--port",
                "0",
                "--api",
                "openai",
                "--kv-events-port",
                "0",
                "--kv-replay-port",
                "0"));
    closers.add(0, worker);
    return worker;
  }

  private RouterFixture router(List<String> workers, String... flags) throws Exception {
    Map<String, List<String>> all = new HashMap<>();
    all.put("worker", workers);
    all.put("served-model-name", List.of("m"));
    for (int i = 0; i < flags.length; i += 2) {
      all.put(flags[i], List.of(flags[i + 1]));
    }
    RouterFixture router = RouterFixture.start(all);
    closers.add(0, router);
    return router;
  }

  private static String chat(boolean stream, int maxTokens) {
    return "{\"model\":\"m\",\"stream\":"
        + stream
        + ",\"max_tokens\":"
        + maxTokens
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"tell me about the kv cache of a"
        + " router in front of plain engines\"}]}";
  }

  /** A streamed chat of {@code maxTokens}, answered once its headers arrive. */
  private static CompletableFuture<HttpResponse<Stream<String>>> streamedChat(
      RouterFixture router, int maxTokens) {
    return HttpClient.newHttpClient()
        .sendAsync(
            HttpRequest.newBuilder(URI.create(router.baseUrl + "/v1/chat/completions"))
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(chat(true, maxTokens)))
                .build(),
            HttpResponse.BodyHandlers.ofLines());
  }

  /** Waits until every engine's scraped load reports its 16,384 KV blocks. */
  private static void awaitReportedCapacity(RouterFixture router) {
    await()
        .atMost(PATIENCE)
        .until(
            () ->
                workers(router).stream()
                    .allMatch(
                        w ->
                            w.containsKey("reported_load")
                                && w.getJsonObject("reported_load").getLong("kv_total_blocks")
                                    == 16384));
  }

  private static List<JsonObject> workers(RouterFixture router) throws Exception {
    JsonArray all = Http.get(router.baseUrl + "/router/workers").json().getJsonArray("workers");
    List<JsonObject> workers = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      workers.add(all.getJsonObject(i));
    }
    return workers;
  }

  @Test
  void chatAndCompletions_streamedAndNot_andKvEventsFeedTheIndex() throws Exception {
    WorkerProcess a = vllm(1);
    WorkerProcess b = vllm(1);
    RouterFixture router =
        router(List.of(a.httpWorkerSpec("v1"), b.httpWorkerSpec("v2")), "router-mode", "kv");

    Http.Response whole = Http.post(router.baseUrl + "/v1/chat/completions", chat(false, 5));
    assertThat(whole.status()).as(whole.body()).isEqualTo(200);
    JsonObject answer = whole.json();
    assertThat(answer.getJsonArray("choices").getJsonObject(0).getString("finish_reason"))
        .isEqualTo("length");
    assertThat(answer.getJsonObject("usage").getInteger("completion_tokens")).isEqualTo(5);

    Http.Response streamed = Http.post(router.baseUrl + "/v1/chat/completions", chat(true, 4));
    assertThat(streamed.status()).isEqualTo(200);
    assertThat(streamed.body()).contains("chat.completion.chunk").endsWith("data: [DONE]\n\n");

    Http.Response completion =
        Http.post(
            router.baseUrl + "/v1/completions",
            "{\"model\":\"m\",\"max_tokens\":3,\"prompt\":\"a prompt for a plain engine\"}");
    assertThat(completion.status()).as(completion.body()).isEqualTo(200);
    assertThat(completion.json().getJsonObject("usage").getInteger("completion_tokens"))
        .isEqualTo(3);

    // the engines' load and capacity, scraped from their /metrics
    awaitReportedCapacity(router);

    // the engines' vLLM events reach the router's index
    await()
        .atMost(PATIENCE)
        .until(() -> workers(router).stream().mapToLong(w -> w.getLong("cached_blocks")).sum() > 0);
    // the same prompt again goes where its blocks are
    JsonObject explained = Http.post(router.baseUrl + "/router/explain", chat(false, 5)).json();
    assertThat(explained.getString("outcome")).isEqualTo("chosen");
    String chosen = explained.getJsonObject("chosen").getString("worker_id");
    JsonArray costs = explained.getJsonArray("workers");
    long overlapOfChosen = 0;
    for (int i = 0; i < costs.size(); i++) {
      if (costs.getJsonObject(i).getString("worker_id").equals(chosen)) {
        overlapOfChosen = costs.getJsonObject(i).getLong("overlap_blocks");
      }
    }
    assertThat(overlapOfChosen).as(explained.encode()).isPositive();
  }

  @Test
  void aClientThatGoesAway_cancelsTheRequestOnTheEngine() throws Exception {
    WorkerProcess slow = vllm(200);
    RouterFixture router = router(List.of(slow.httpWorkerSpec("v1")), "router-mode", "round-robin");
    HttpResponse<Stream<String>> response = streamedChat(router, 200).get();
    assertThat(response.statusCode()).isEqualTo(200);
    var lines = response.body().iterator();
    lines.next(); // the stream is running
    await().atMost(PATIENCE).until(() -> activeOnEngine(slow) == 1);
    response.body().close(); // the client goes away
    await().atMost(PATIENCE).until(() -> activeOnEngine(slow) == 0);
    await().atMost(PATIENCE).until(() -> workers(router).get(0).getInteger("active_requests") == 0);
  }

  @Test
  void moreStreamsThanTheTcpPoolSize_runOnTheEngineAtOnce() throws Exception {
    // an HTTP/1.1 answer holds its connection while it streams, so a pool of 2 connections would
    // let the engine run 2 requests and queue the rest in the router
    WorkerProcess slow = vllm(200);
    RouterFixture router =
        router(
            List.of(slow.httpWorkerSpec("v1")), "router-mode", "round-robin", "tcp-pool-size", "2");
    List<CompletableFuture<HttpResponse<Stream<String>>>> streams = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      streams.add(streamedChat(router, 200));
    }
    await().atMost(PATIENCE).until(() -> activeOnEngine(slow) == 5);
    for (var stream : streams) {
      stream.get().body().close();
    }
    await().atMost(PATIENCE).until(() -> activeOnEngine(slow) == 0);
  }

  private static int activeOnEngine(WorkerProcess worker) throws Exception {
    return (int) worker.metric("dynamo_component_inflight_requests");
  }

  @Test
  void aWorkerKilledMidStream_hasItsRequestMigrated() throws Exception {
    WorkerProcess a = vllm(40);
    WorkerProcess b = vllm(40);
    RouterFixture router =
        router(
            List.of(a.httpWorkerSpec("v1"), b.httpWorkerSpec("v2")),
            "router-mode",
            "round-robin",
            "migration-limit",
            "3");
    HttpResponse<Stream<String>> response = streamedChat(router, 60).get();
    List<String> lines = Collections.synchronizedList(new ArrayList<>());
    Thread reader = new Thread(() -> response.body().forEach(lines::add));
    reader.start();
    await()
        .atMost(PATIENCE)
        .until(() -> lines.stream().filter(l -> l.startsWith("data: {")).count() >= 5);
    String busy =
        workers(router).stream()
            .filter(w -> w.getInteger("active_requests") == 1)
            .findFirst()
            .orElseThrow()
            .getString("worker_id");
    (busy.equals("v1") ? a : b).kill();
    reader.join(60_000);
    assertThat(reader.isAlive()).isFalse();
    assertThat(lines).contains("data: [DONE]");
    assertThat(String.join("\n", lines)).doesNotContain("\"error\"");
    long content =
        lines.stream().filter(l -> l.startsWith("data: {") && l.contains("\"content\"")).count();
    assertThat(content).as("every token arrives, from the worker it moved to").isGreaterThan(5);
    assertThat(Http.get(router.baseUrl + "/metrics").body())
        .containsPattern("dynamo_frontend_model_migration_total\\{[^}]*\\} 1.0");
  }

  @Test
  void aDynamoWorkerAndAPlainEngine_serveOneModelTogether() throws Exception {
    WorkerProcess engine = vllm(1);
    WorkerProcess dynamo = WorkerProcess.start("m", 5, 1);
    closers.add(0, dynamo);
    RouterFixture router =
        router(
            List.of(engine.httpWorkerSpec("plain"), dynamo.workerSpec("dynamo")),
            "router-mode",
            "round-robin");
    for (int i = 0; i < 4; i++) {
      Http.Response r = Http.post(router.baseUrl + "/v1/chat/completions", chat(i % 2 == 0, 3));
      assertThat(r.status()).as(r.body()).isEqualTo(200);
    }
    assertThat(workers(router))
        .extracting(w -> w.getString("worker_id") + " " + w.getString("address"))
        .containsExactlyInAnyOrder(
            "plain http://127.0.0.1:" + engine.port(),
            "dynamo 127.0.0.1:" + dynamo.port() + "/generate");
    assertThat(engine.metric("dynamo_component_requests_total")).isEqualTo(2);
    assertThat(dynamo.metric("dynamo_component_requests_total")).isEqualTo(2);
  }

  @Test
  void anEngineWithAnotherBlockSize_isAClearErrorAtStart() throws Exception {
    WorkerProcess other =
        WorkerProcess.start(
            "m", 5, 1, List.of("--port", "0", "--api", "openai", "--kv-cache-block-size", "32"));
    closers.add(0, other);
    assertThatThrownBy(
            () ->
                router(
                    List.of(other.httpWorkerSpec("v1")), "router-mode", "kv", "kv-events", "false"))
        .hasStackTraceContaining(
            "worker v1 caches KV blocks of 32 tokens (its /metrics), but the router hashes blocks"
                + " of 16");
  }

  @Test
  void anEngineWhoseFirstTokenTakesLongerThanTheRequestTimeout_isStillAnswered() throws Exception {
    // the simulated engine sends its headers with its first token, as a server may; only the
    // router's stream idle timeout (120 s) bounds that wait, not --tcp-request-timeout
    WorkerProcess slowStart =
        WorkerProcess.start("m", 2500, 1, List.of("--port", "0", "--api", "openai"));
    closers.add(0, slowStart);
    RouterFixture router =
        router(
            List.of(slowStart.httpWorkerSpec("v1")),
            "router-mode",
            "round-robin",
            "tcp-request-timeout",
            "1");
    Http.Response answer = Http.post(router.baseUrl + "/v1/chat/completions", chat(true, 3));
    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.body()).endsWith("data: [DONE]\n\n").doesNotContain("\"error\"");
  }

  @Test
  void aDataParallelEngine_hasEachRankRoutedToByHeader() throws Exception {
    WorkerProcess dp =
        WorkerProcess.start(
            "m", 2000, 1, List.of("--port", "0", "--api", "openai", "--data-parallel-size", "2"));
    closers.add(0, dp);
    RouterFixture router =
        router(
            List.of(dp.httpWorkerSpec("v1") + ",dp-size=2"),
            "router-mode",
            "kv",
            "kv-events",
            "false");
    // requests at once (each takes 2 s to its first token, so all are running together): the KV
    // router spreads them over the ranks by the load it booked, naming the rank in
    // X-data-parallel-rank
    HttpClient client = HttpClient.newHttpClient();
    List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      answers.add(
          client.sendAsync(
              HttpRequest.newBuilder(URI.create(router.baseUrl + "/v1/completions"))
                  .header("content-type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"model\":\"m\",\"max_tokens\":2,\"prompt\":\"distinct prompt "
                              + i
                              + " with enough words to fill a block or two of the cache\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString()));
    }
    for (var answer : answers) {
      assertThat(answer.get(60, java.util.concurrent.TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }
    // each rank's own cache holds blocks: the rank the router chose is the one that ran
    assertThat(dp.kvState(0).getJsonArray("blocks")).isNotEmpty();
    assertThat(dp.kvState(1).getJsonArray("blocks")).isNotEmpty();
  }

  private WorkerProcess sglang(int itlMs) throws Exception {
    WorkerProcess worker =
        WorkerProcess.start(
            "m",
            5,
            itlMs,
            List.of(
                "--port",
                "0",
                "--api",
                "sglang",
                "--kv-events-port",
                "0",
                "--kv-replay-port",
                "0"));
    closers.add(0, worker);
    return worker;
  }

  @Test
  void sglangEngines_serveTheOpenAiSurface_reportTheirLoad_andFeedTheIndex() throws Exception {
    WorkerProcess a = sglang(1);
    WorkerProcess b = sglang(1);
    RouterFixture router =
        router(
            List.of(
                a.httpWorkerSpec("s1") + ",engine=sglang",
                b.httpWorkerSpec("s2") + ",engine=sglang"),
            "router-mode",
            "kv");
    Http.Response whole = Http.post(router.baseUrl + "/v1/chat/completions", chat(false, 5));
    assertThat(whole.status()).as(whole.body()).isEqualTo(200);
    assertThat(whole.json().getJsonObject("usage").getInteger("completion_tokens")).isEqualTo(5);
    Http.Response streamed = Http.post(router.baseUrl + "/v1/chat/completions", chat(true, 7));
    assertThat(streamed.status()).isEqualTo(200);
    long chunks =
        streamed
            .body()
            .lines()
            .filter(l -> l.startsWith("data: {") && l.contains("\"content\""))
            .count();
    assertThat(chunks).as("every token once, from SGLang's cumulative outputs").isEqualTo(7);
    awaitReportedCapacity(router);
    await()
        .atMost(PATIENCE)
        .until(() -> workers(router).stream().mapToLong(w -> w.getLong("cached_blocks")).sum() > 0);
  }

  @Test
  void aClientThatGoesAway_hasItsSglangRequestAborted() throws Exception {
    WorkerProcess slow = sglang(200);
    RouterFixture router =
        router(List.of(slow.httpWorkerSpec("s1") + ",engine=sglang"), "router-mode", "round-robin");
    HttpResponse<Stream<String>> response = streamedChat(router, 200).get();
    response.body().iterator().next();
    await().atMost(PATIENCE).until(() -> activeOnEngine(slow) == 1);
    response.body().close();
    await().atMost(PATIENCE).until(() -> activeOnEngine(slow) == 0);
    // SGLang itself waits about 2 s after a disconnect; the router asks it to abort at once
    assertThat(slow.metric("kvrouter_worker_abort_requests_total")).isEqualTo(1);
  }

  @Test
  void vllmAndSglangEngines_serveOneModelTogether() throws Exception {
    WorkerProcess v = vllm(1);
    WorkerProcess s = sglang(1);
    RouterFixture router =
        router(
            List.of(v.httpWorkerSpec("v"), s.httpWorkerSpec("s") + ",engine=sglang"),
            "router-mode",
            "round-robin");
    for (int i = 0; i < 4; i++) {
      Http.Response r = Http.post(router.baseUrl + "/v1/chat/completions", chat(i % 2 == 0, 3));
      assertThat(r.status()).as(r.body()).isEqualTo(200);
    }
    assertThat(v.metric("dynamo_component_requests_total")).isEqualTo(2);
    assertThat(s.metric("dynamo_component_requests_total")).isEqualTo(2);
  }

  @Test
  void anEngineThatCannotBeReached_isFailedOverBeforeTheFirstToken() throws Exception {
    WorkerProcess gone = vllm(1);
    WorkerProcess up = vllm(1);
    RouterFixture router =
        router(
            List.of(gone.httpWorkerSpec("gone"), up.httpWorkerSpec("up")),
            "router-mode",
            "round-robin");
    gone.kill();
    for (int i = 0; i < 4; i++) {
      Http.Response r = Http.post(router.baseUrl + "/v1/chat/completions", chat(i % 2 == 0, 3));
      assertThat(r.status()).as(r.body()).isEqualTo(200);
    }
    assertThat(up.metric("dynamo_component_requests_total")).isEqualTo(4);
    await()
        .atMost(PATIENCE)
        .until(
            () ->
                workers(router).stream()
                    .anyMatch(
                        w -> w.getString("worker_id").equals("gone") && !w.getBoolean("healthy")));
  }
}
