package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.kvrouter.testing.Http;
import io.kvrouter.testing.WorkerProcess;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The hardening of the front door, over real HTTP: CORS off by default and, with {@code
 * --allowed-origins}, answered for the OpenAI routes only and before the key check; the client's
 * {@code X-Request-Id} kept, validated, echoed and never a key; and no client-facing error that
 * names a worker's address, a Java class, a stack frame or a file path, while the router's log
 * keeps the detail under the request's id.
 */
class HardeningIT {
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final String KEY = "sk-client-0123456789";
  private static final String PAGE = "http://localhost:5173";
  private static final Pattern UUID =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  private final HttpClient http = HttpClient.newHttpClient();
  private final List<AutoCloseable> closers = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable closer : closers) {
      closer.close();
    }
  }

  private RouterFixture router(Map<String, List<String>> flags) throws Exception {
    RouterFixture router = RouterFixture.start(flags);
    closers.add(0, router);
    return router;
  }

  private WorkerProcess vllm(String model, int itlMs) throws Exception {
    WorkerProcess worker =
        WorkerProcess.start(model, 5, itlMs, List.of("--port", "0", "--api", "openai"));
    closers.add(0, worker);
    return worker;
  }

  private static String chat(String model, boolean stream, int maxTokens) {
    return "{\"model\":\""
        + model
        + "\",\"stream\":"
        + stream
        + ",\"max_tokens\":"
        + maxTokens
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"say something\"}]}";
  }

  private HttpRequest.Builder request(RouterFixture router, String path) {
    return HttpRequest.newBuilder(URI.create(router.baseUrl + path)).timeout(PATIENCE);
  }

  private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> preflight(RouterFixture router, String path, String origin)
      throws Exception {
    return preflight(router, path, origin, "authorization, content-type");
  }

  private HttpResponse<String> preflight(
      RouterFixture router, String path, String origin, String requestHeaders) throws Exception {
    return send(
        request(router, path)
            .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
            .header("Origin", origin)
            .header("Access-Control-Request-Method", "POST")
            .header("Access-Control-Request-Headers", requestHeaders));
  }

  /** The names of {@code Access-Control-Expose-Headers}, in lower case. */
  private static List<String> exposed(HttpResponse<?> response) {
    return Stream.of(
            response.headers().firstValue("access-control-expose-headers").orElse("").split(","))
        .map(name -> name.trim().toLowerCase())
        .filter(name -> !name.isEmpty())
        .toList();
  }

  /** The names of the response's rate-limit headers, in lower case. */
  private static List<String> rateLimitHeaders(HttpResponse<?> response) {
    return response.headers().map().keySet().stream()
        .map(String::toLowerCase)
        .filter(name -> name.startsWith("x-ratelimit-") || name.startsWith("retry-after"))
        .toList();
  }

  private HttpResponse<String> postChat(RouterFixture router, String origin, String key)
      throws Exception {
    HttpRequest.Builder request =
        request(router, "/v1/chat/completions")
            .header("content-type", "application/json")
            .header("Origin", origin)
            .POST(HttpRequest.BodyPublishers.ofString(chat("mock-model", false, 4)));
    if (key != null) {
      request.header("Authorization", "Bearer " + key);
    }
    return send(request);
  }

  private static List<String> corsHeaders(HttpResponse<?> response) {
    return response.headers().map().keySet().stream()
        .filter(name -> name.toLowerCase().startsWith("access-control-"))
        .toList();
  }

  @Test
  void cors_isOffByDefault() throws Exception {
    Map<String, List<String>> flags = new HashMap<>();
    flags.put("mock-workers", List.of("1"));
    RouterFixture router = router(flags);

    HttpResponse<String> preflight = preflight(router, "/v1/chat/completions", PAGE);
    assertThat(preflight.statusCode()).isEqualTo(405);
    assertThat(corsHeaders(preflight)).isEmpty();
    HttpResponse<String> answer = postChat(router, PAGE, null);
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(corsHeaders(answer)).isEmpty();
  }

  @Test
  void cors_answersAllowedOriginsOnTheOpenAiRoutes_preflightsBeforeTheKeyCheck() throws Exception {
    Map<String, List<String>> flags = new HashMap<>();
    flags.put("mock-workers", List.of("1"));
    flags.put("allowed-origins", List.of(PAGE));
    flags.put("api-key", List.of(KEY));
    RouterFixture router = router(flags);

    // a preflight has no key: an allowed origin's is answered anyway, and says what may follow
    HttpResponse<String> preflight = preflight(router, "/v1/chat/completions", PAGE);
    assertThat(preflight.statusCode()).isEqualTo(204);
    assertThat(preflight.headers().firstValue("access-control-allow-origin")).contains(PAGE);
    assertThat(preflight.headers().firstValue("access-control-allow-methods"))
        .contains("GET, POST");
    assertThat(preflight.headers().firstValue("access-control-allow-headers"))
        .contains("Authorization, Content-Type, X-Request-Id");
    assertThat(preflight.headers().allValues("vary")).contains("Origin");
    assertThat(preflight.headers().firstValue("access-control-allow-credentials")).isEmpty();

    // the actual request still needs its key; both answers are readable by the allowed page
    HttpResponse<String> keyed = postChat(router, PAGE, KEY);
    assertThat(keyed.statusCode()).isEqualTo(200);
    assertThat(keyed.headers().firstValue("access-control-allow-origin")).contains(PAGE);
    assertThat(exposed(keyed)).contains("x-request-id");
    HttpResponse<String> keyless = postChat(router, PAGE, null);
    assertThat(keyless.statusCode()).isEqualTo(401);
    assertThat(keyless.headers().firstValue("access-control-allow-origin")).contains(PAGE);

    // another origin gets no CORS header: its preflight falls to the key check, its answers
    // stay unreadable to its page
    String other = "http://localhost:6666";
    HttpResponse<String> refused = preflight(router, "/v1/chat/completions", other);
    assertThat(refused.statusCode()).isEqualTo(401);
    assertThat(corsHeaders(refused)).isEmpty();
    HttpResponse<String> otherAnswer = postChat(router, other, KEY);
    assertThat(otherAnswer.statusCode()).isEqualTo(200);
    assertThat(corsHeaders(otherAnswer)).isEmpty();

    // the admin routes and the probes never answer cross-origin
    for (String path : new String[] {"/metrics", "/router/workers", "/health"}) {
      HttpResponse<String> admin = preflight(router, path, PAGE);
      assertThat(admin.statusCode()).as(path).isNotEqualTo(204);
      assertThat(corsHeaders(admin)).as(path).isEmpty();
      HttpResponse<String> get = send(request(router, path).header("Origin", PAGE).GET());
      assertThat(corsHeaders(get)).as(path).isEmpty();
    }
  }

  @Test
  void cors_grantsTheHeadersAnOpenAiSdkSends_andExposesTheRateLimitHeaders() throws Exception {
    Map<String, List<String>> flags = new HashMap<>();
    flags.put("mock-workers", List.of("1"));
    flags.put("allowed-origins", List.of(PAGE));
    flags.put("api-key", List.of(KEY));
    flags.put("rate-limit-requests-per-minute", List.of("1"));
    flags.put("rate-limit-tokens-per-minute", List.of("100000"));
    RouterFixture router = router(flags);

    // the OpenAI JS SDK's own headers: a fixed list without them fails the browser's preflight
    HttpResponse<String> preflight =
        preflight(
            router,
            "/v1/chat/completions",
            PAGE,
            "authorization, content-type, x-stainless-os, x-stainless-retry-count");
    assertThat(preflight.statusCode()).isEqualTo(204);
    assertThat(
            Stream.of(
                    preflight
                        .headers()
                        .firstValue("access-control-allow-headers")
                        .orElse("")
                        .split(","))
                .map(name -> name.trim().toLowerCase()))
        .contains("authorization", "content-type", "x-stainless-os", "x-stainless-retry-count");
    assertThat(preflight.headers().allValues("vary"))
        .contains("Origin", "Access-Control-Request-Headers");
    assertThat(preflight.headers().firstValue("access-control-allow-credentials")).isEmpty();
    // a name that is no header name is not echoed
    HttpResponse<String> odd =
        preflight(router, "/v1/chat/completions", PAGE, "authorization, x-a b");
    assertThat(odd.headers().firstValue("access-control-allow-headers"))
        .contains("Authorization, Content-Type, X-Request-Id");

    // an admitted answer's rate-limit headers and a refusal's wait are readable by the page
    HttpResponse<String> admitted = postChat(router, PAGE, KEY);
    assertThat(admitted.statusCode()).isEqualTo(200);
    assertThat(rateLimitHeaders(admitted))
        .containsExactlyInAnyOrder(
            "x-ratelimit-limit-requests",
            "x-ratelimit-remaining-requests",
            "x-ratelimit-reset-requests",
            "x-ratelimit-limit-tokens",
            "x-ratelimit-remaining-tokens",
            "x-ratelimit-reset-tokens");
    assertThat(exposed(admitted)).contains("x-request-id").containsAll(rateLimitHeaders(admitted));
    HttpResponse<String> refused = postChat(router, PAGE, KEY);
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("access-control-allow-origin")).contains(PAGE);
    assertThat(rateLimitHeaders(refused)).contains("retry-after", "retry-after-ms");
    assertThat(exposed(refused)).contains("x-request-id").containsAll(rateLimitHeaders(refused));
    assertThat(refused.headers().firstValue("access-control-allow-credentials")).isEmpty();
  }

  @Test
  void cors_withAnyOrigin_answersStar_neverWithCredentials() throws Exception {
    Map<String, List<String>> flags = new HashMap<>();
    flags.put("mock-workers", List.of("1"));
    flags.put("allowed-origins", List.of("*"));
    RouterFixture router = router(flags);

    HttpResponse<String> preflight = preflight(router, "/v1/models", "http://localhost:7777");
    assertThat(preflight.statusCode()).isEqualTo(204);
    assertThat(preflight.headers().firstValue("access-control-allow-origin")).contains("*");
    assertThat(preflight.headers().firstValue("access-control-allow-credentials")).isEmpty();
    HttpResponse<String> models =
        send(request(router, "/v1/models").header("Origin", "http://localhost:7777").GET());
    assertThat(models.statusCode()).isEqualTo(200);
    assertThat(models.headers().firstValue("access-control-allow-origin")).contains("*");
  }

  @Test
  void requestIds_areKeptValidatedEchoedAndNeverShared_withARealWorker() throws Exception {
    WorkerProcess worker = vllm("m", 20);
    Map<String, List<String>> flags = new HashMap<>();
    flags.put("worker", List.of(worker.httpWorkerSpec("v1")));
    flags.put("served-model-name", List.of("m"));
    RouterFixture router = router(flags);
    Logger handlerLog = (Logger) LoggerFactory.getLogger("io.kvrouter.frontend.GenerationHandler");
    handlerLog.setLevel(Level.DEBUG);
    try (LogCapture log = LogCapture.attach()) {
      // the same client id on two requests at once: both run, each under its own router id
      List<CompletableFuture<HttpResponse<Stream<String>>>> both = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        both.add(
            http.sendAsync(
                request(router, "/v1/chat/completions")
                    .header("content-type", "application/json")
                    .header("X-Request-Id", "client-abc-123")
                    .POST(HttpRequest.BodyPublishers.ofString(chat("m", true, 30)))
                    .build(),
                HttpResponse.BodyHandlers.ofLines()));
      }
      List<String> ids = new ArrayList<>();
      for (CompletableFuture<HttpResponse<Stream<String>>> one : both) {
        HttpResponse<Stream<String>> response = one.get();
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("x-request-id")).contains("client-abc-123");
        List<String> lines = response.body().toList();
        assertThat(lines).contains("data: [DONE]");
        ids.add(new JsonObject(lines.get(0).substring("data: ".length())).getString("id"));
      }
      assertThat(ids).doesNotHaveDuplicates();
      assertThat(ids).allMatch(id -> UUID.matcher(id).find() && !id.contains("client-abc-123"));
      // the router's log ties the client's id to the router's
      String internal = ids.get(0).substring("chatcmpl-".length());
      assertThat(log.all())
          .anyMatch(l -> l.contains("client-abc-123 (router id " + internal + ")"));
    } finally {
      handlerLog.setLevel(null);
    }

    // no id, or an invalid one: the router's own id, which is the completion's
    for (String given : new String[] {null, "has spaces", "x".repeat(129)}) {
      HttpRequest.Builder request =
          request(router, "/v1/chat/completions")
              .header("content-type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(chat("m", false, 3)));
      if (given != null) {
        request.header("X-Request-Id", given);
      }
      HttpResponse<String> answer = send(request);
      assertThat(answer.statusCode()).isEqualTo(200);
      String echoed = answer.headers().firstValue("x-request-id").orElseThrow();
      assertThat(echoed).as(String.valueOf(given)).matches(UUID.pattern());
      assertThat(new JsonObject(answer.body()).getString("id")).isEqualTo("chatcmpl-" + echoed);
    }

    // errors carry the id too
    HttpResponse<String> unknown =
        send(
            request(router, "/v1/chat/completions")
                .header("content-type", "application/json")
                .header("X-Request-Id", "client-404")
                .POST(HttpRequest.BodyPublishers.ofString(chat("nope", false, 3))));
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(unknown.headers().firstValue("x-request-id")).contains("client-404");
    HttpResponse<String> noRoute = send(request(router, "/v2/x").header("X-Request-Id", "r-1"));
    assertThat(noRoute.statusCode()).isEqualTo(404);
    assertThat(noRoute.headers().firstValue("x-request-id")).contains("r-1");
  }

  /** What no client-facing error may show. */
  private static void assertHygienic(String body, int workerPort) {
    assertThat(body)
        .doesNotContain("127.0.0.1:" + workerPort)
        .doesNotContain("localhost:" + workerPort)
        .doesNotContain("Exception")
        .doesNotContain("at io.")
        .doesNotContain("java.")
        .doesNotContain("com.fasterxml")
        .doesNotContain("/");
  }

  private HttpResponse<String> postWithId(RouterFixture router, String body, String id)
      throws Exception {
    return send(
        request(router, "/v1/chat/completions")
            .header("content-type", "application/json")
            .header("X-Request-Id", id)
            .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  @Test
  void errors_showNoAddressClassOrPath_whileTheLogKeepsTheDetail() throws Exception {
    WorkerProcess gone = vllm("m", 1);
    WorkerProcess refusing = vllm("another-model", 1);
    WorkerProcess dying = vllm("m", 300);
    try (LogCapture log = LogCapture.attach()) {
      // a worker that was healthy when the router probed it, and is gone when a request comes:
      // the router finds out by calling its address
      Map<String, List<String>> unreachableFlags = new HashMap<>();
      unreachableFlags.put("worker", List.of(gone.httpWorkerSpec("gone")));
      unreachableFlags.put("served-model-name", List.of("m"));
      RouterFixture unreachable = router(unreachableFlags);
      await()
          .atMost(PATIENCE)
          .until(
              () ->
                  Http.get(unreachable.baseUrl + "/router/workers")
                      .json()
                      .getJsonArray("workers")
                      .getJsonObject(0)
                      .getBoolean("healthy"));
      gone.kill();
      HttpResponse<String> noWorker = postWithId(unreachable, chat("m", false, 3), "e-unreach");
      assertThat(noWorker.statusCode()).isEqualTo(503);
      assertHygienic(noWorker.body(), gone.port());
      assertThat(noWorker.body()).contains("request id e-unreach");
      assertThat(log.all())
          .anyMatch(l -> l.contains("e-unreach") && l.contains("127.0.0.1:" + gone.port()));

      // a worker that refuses every request (it serves another model)
      Map<String, List<String>> refusingFlags = new HashMap<>();
      refusingFlags.put("worker", List.of(refusing.httpWorkerSpec("picky")));
      refusingFlags.put("served-model-name", List.of("m"));
      RouterFixture refused = router(refusingFlags);
      HttpResponse<String> refusal = postWithId(refused, chat("m", false, 3), "e-refused");
      assertThat(refusal.statusCode()).isEqualTo(503);
      assertHygienic(refusal.body(), refusing.port());
      assertThat(log.all())
          .anyMatch(l -> l.contains("e-refused") && l.contains("picky") && l.contains("404"));

      // an unknown model, and a malformed body: the client's own mistakes, said plainly
      HttpResponse<String> unknown = postWithId(refused, chat("nope", false, 3), "e-model");
      assertThat(unknown.statusCode()).isEqualTo(404);
      assertHygienic(unknown.body(), refusing.port());
      assertThat(new JsonObject(unknown.body()).getJsonObject("error").getString("code"))
          .isEqualTo("model_not_found");
      HttpResponse<String> malformed = postWithId(refused, "{\"model\": nope", "e-json");
      assertThat(malformed.statusCode()).isEqualTo(400);
      assertHygienic(malformed.body(), refusing.port());
      assertThat(new JsonObject(malformed.body()).getJsonObject("error").getString("message"))
          .isEqualTo(
              "The request body is not valid JSON: Unrecognized token 'nope': was expecting (JSON"
                  + " String, Number, Array, Object or token 'null', 'true' or 'false') (line 1,"
                  + " column 11)");

      // a worker that dies in the middle of a stream
      Map<String, List<String>> dyingFlags = new HashMap<>();
      dyingFlags.put("worker", List.of(dying.httpWorkerSpec("doomed")));
      dyingFlags.put("served-model-name", List.of("m"));
      RouterFixture doomed = router(dyingFlags);
      HttpResponse<Stream<String>> stream =
          http.send(
              request(doomed, "/v1/chat/completions")
                  .header("content-type", "application/json")
                  .header("X-Request-Id", "e-died")
                  .POST(HttpRequest.BodyPublishers.ofString(chat("m", true, 500)))
                  .build(),
              HttpResponse.BodyHandlers.ofLines());
      assertThat(stream.statusCode()).isEqualTo(200);
      Iterator<String> lines = stream.body().iterator();
      assertThat(lines.next()).startsWith("data: "); // the stream is running
      dying.kill();
      String errorEvent = null;
      while (lines.hasNext()) {
        String line = lines.next();
        if (line.startsWith("data: {\"error\"")) {
          errorEvent = line;
        }
      }
      assertThat(errorEvent).isNotNull();
      assertHygienic(errorEvent.substring("data: ".length()), dying.port());
      assertThat(errorEvent).contains("request id e-died");

      // the operator finds each failure's detail under the id the client was given
      await()
          .atMost(PATIENCE)
          .until(
              () -> log.all().stream().anyMatch(l -> l.contains("e-died") && l.contains("doomed")));
    }
  }
}
