package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.UnauthorizedException;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.kvrouter.testing.NodeOpenAiClient;
import io.kvrouter.testing.Prometheus;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * API keys on a real router with a simulated worker, checked with the official OpenAI clients (Java
 * and Node) and plain HTTP: a client key opens the OpenAI routes, a missing or wrong one gets 401
 * with an OpenAI error body; {@code /health} and {@code /live} stay open; the admin key alone opens
 * {@code /metrics} and {@code /router/...}; a changed keys file takes effect without a restart; no
 * key ever reaches the log.
 */
class ApiKeysIT {
  private static final String MODEL = "mock-model";
  private static final String FLAG_KEY = "sk-flag-0123456789";
  private static final String TEAM_KEY = "sk-team-a-0123456789";
  private static final String NEW_KEY = "sk-team-b-9876543210";
  private static final String ADMIN_KEY = "sk-admin-0123456789";

  private final HttpClient http = HttpClient.newHttpClient();

  @TempDir Path dir;

  private HttpResponse<String> get(RouterFixture router, String path, String key) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(router.baseUrl + path)).timeout(Duration.ofSeconds(30));
    if (key != null) {
      request.header("Authorization", "Bearer " + key);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static OpenAIClient client(RouterFixture router, String key) {
    return OpenAIOkHttpClient.builder()
        .baseUrl(router.baseUrl + "/v1")
        .apiKey(key)
        .maxRetries(0)
        .build();
  }

  private static ChatCompletionCreateParams hello() {
    return ChatCompletionCreateParams.builder()
        .model(MODEL)
        .addUserMessage("Say hello.")
        .maxCompletionTokens(8)
        .build();
  }

  @Test
  void keysOpenTheirRoutes_andNothingElseDoes() throws Exception {
    Path keys = Files.writeString(dir.resolve("api-keys"), "team-a " + TEAM_KEY + "\n");
    Map<String, List<String>> flags = new HashMap<>();
    flags.put("mock-workers", List.of("1"));
    flags.put("api-key", List.of(FLAG_KEY));
    flags.put("api-keys-file", List.of(keys.toString()));
    flags.put("admin-api-key", List.of(ADMIN_KEY));
    try (LogCapture log = LogCapture.attach();
        RouterFixture router = RouterFixture.start(flags)) {
      // the official clients with a key get answers, without one a 401
      assertThat(client(router, FLAG_KEY).chat().completions().create(hello()).choices())
          .hasSize(1);
      assertThat(client(router, TEAM_KEY).chat().completions().create(hello()).choices())
          .hasSize(1);
      assertThatThrownBy(() -> client(router, "sk-wrong").chat().completions().create(hello()))
          .isInstanceOf(UnauthorizedException.class);
      JsonObject node =
          NodeOpenAiClient.run("openai-auth.js", router.baseUrl + "/v1", MODEL, TEAM_KEY);
      assertThat(node.getBoolean("ok")).as(node.encode()).isTrue();
      node = NodeOpenAiClient.run("openai-auth.js", router.baseUrl + "/v1", MODEL, "sk-wrong");
      assertThat(node.getInteger("status")).isEqualTo(401);
      assertThat(node.getString("code")).isEqualTo("invalid_api_key");

      // plain HTTP: every OpenAI route wants a key, and says so in an OpenAI error body
      for (String key : new String[] {null, "sk-wrong", ADMIN_KEY}) {
        HttpResponse<String> models = get(router, "/v1/models", key);
        assertThat(models.statusCode()).as(String.valueOf(key)).isEqualTo(401);
        assertThat(models.headers().firstValue("www-authenticate")).contains("Bearer");
        JsonObject error = new JsonObject(models.body()).getJsonObject("error");
        assertThat(error.getString("code")).isEqualTo("invalid_api_key");
        assertThat(error.getString("type")).isEqualTo("invalid_request_error");
      }
      assertThat(get(router, "/v1/no-such-route", null).statusCode())
          .as("routes are not told apart before the key")
          .isEqualTo(401);
      assertThat(get(router, "/v1/models", TEAM_KEY).statusCode()).isEqualTo(200);
      HttpResponse<String> refusedPost =
          http.send(
              HttpRequest.newBuilder(URI.create(router.baseUrl + "/v1/chat/completions"))
                  .header("content-type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"model\":\"" + "x".repeat(200_000) + "\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(refusedPost.statusCode()).isEqualTo(401);
      assertThat(refusedPost.headers().firstValue("connection")).contains("close");

      // probes stay open; the admin routes want the admin key, and only it
      assertThat(get(router, "/health", null).statusCode()).isEqualTo(200);
      assertThat(get(router, "/live", null).statusCode()).isEqualTo(200);
      for (String path :
          new String[] {"/metrics", "/router/workers", "/metrics/", "/router/workers/", "/x"}) {
        assertThat(get(router, path, null).statusCode()).as(path).isEqualTo(401);
        assertThat(get(router, path, TEAM_KEY).statusCode()).as(path).isEqualTo(401);
        assertThat(get(router, path, ADMIN_KEY).statusCode())
            .as(path)
            .isEqualTo(path.equals("/x") ? 404 : 200);
      }
      assertThat(get(router, "/health/", null).statusCode()).isEqualTo(200);

      // the file changes: the new key opens, the removed one no longer does
      Files.writeString(keys, "# rotated\nteam-b " + NEW_KEY + "\n");
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> get(router, "/v1/models", NEW_KEY).statusCode() == 200);
      assertThat(get(router, "/v1/models", TEAM_KEY).statusCode()).isEqualTo(401);
      assertThat(get(router, "/v1/models", FLAG_KEY).statusCode())
          .as("a flag's key stays")
          .isEqualTo(200);
      // a file that no longer parses leaves the keys as they were
      Files.writeString(keys, "team-b sk-one-0123456789abcdef sk-two-0123456789abcdef\n");
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  log.at(Level.WARN).stream()
                      .anyMatch(l -> l.contains("line 1: expected [NAME] KEY")));
      assertThat(get(router, "/v1/models", NEW_KEY).statusCode()).isEqualTo(200);

      // the file is deleted: its keys open nothing any more, a flag's key still does
      Files.delete(keys);
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> get(router, "/v1/models", NEW_KEY).statusCode() == 401);
      assertThat(get(router, "/v1/models", FLAG_KEY).statusCode()).isEqualTo(200);

      String metrics = get(router, "/metrics", ADMIN_KEY).body();
      assertThat(
              Prometheus.sum(metrics, "kvrouter_api_key_requests_total", Map.of("key", "team-a")))
          .isGreaterThanOrEqualTo(2);
      assertThat(
              Prometheus.sum(
                  metrics, "kvrouter_api_key_rejections_total", Map.of("scope", "client")))
          .isGreaterThanOrEqualTo(5);

      for (String line : log.all()) {
        for (String key :
            List.of(
                FLAG_KEY,
                TEAM_KEY,
                NEW_KEY,
                ADMIN_KEY,
                "sk-one-0123456789abcdef",
                "sk-two-0123456789abcdef")) {
          assertThat(line).as("the log").doesNotContain(key);
        }
      }
    }
  }
}
