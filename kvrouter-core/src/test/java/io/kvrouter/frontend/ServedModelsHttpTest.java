package io.kvrouter.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.testing.FakeRequestPlane;
import io.kvrouter.testing.Futures;
import io.kvrouter.testing.Http;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One frontend serving two models, each with its own router and worker: a request goes to a worker
 * of the model it names, and the model list, the health and the worker list cover both.
 */
class ServedModelsHttpTest {
  private final Vertx vertx = Vertx.vertx();
  private final FakeRequestPlane plane = new FakeRequestPlane();
  private String base;
  private ServedModels models;

  @BeforeEach
  void start() throws Exception {
    Map<String, String> workers = new LinkedHashMap<>();
    workers.put("beta", "b1");
    workers.put("alpha", "a1");
    DemoFrontend.Served served = DemoFrontend.serve(vertx, plane, workers);
    base = "http://127.0.0.1:" + served.port();
    models = served.models();
  }

  @AfterEach
  void close() throws Exception {
    Futures.result(vertx.close());
  }

  private static String chat(String model) {
    return "{\"model\":\""
        + model
        + "\",\"max_tokens\":2,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
  }

  @Test
  void eachRequest_goesToAWorkerOfTheModelItNames() throws Exception {
    assertThat(Http.post(base + "/v1/chat/completions", chat("alpha")).status()).isEqualTo(200);
    assertThat(Http.post(base + "/v1/chat/completions", chat("beta")).status()).isEqualTo(200);
    assertThat(Http.post(base + "/v1/chat/completions", chat("alpha")).status()).isEqualTo(200);

    assertThat(plane.sends).containsExactly("a1", "b1", "a1");
    assertThat(plane.sentRequests)
        .extracting(r -> r.model())
        .containsExactly("alpha", "beta", "alpha");
  }

  @Test
  void anUnknownModel_isNotFound() throws Exception {
    Http.Response response = Http.post(base + "/v1/chat/completions", chat("gamma"));

    assertThat(response.status()).isEqualTo(404);
    assertThat(response.json().getJsonObject("error").getString("message")).contains("gamma");
    assertThat(plane.sends).isEmpty();
  }

  @Test
  void modelsHealthAndWorkers_listEveryModel() throws Exception {
    JsonArray models = Http.get(base + "/v1/models").json().getJsonArray("data");
    assertThat(models.stream().map(m -> ((JsonObject) m).getString("id")))
        .containsExactly("alpha", "beta");

    Http.Response health = Http.get(base + "/health");
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.json().getJsonArray("models").getList()).containsExactly("alpha", "beta");

    JsonArray workers = Http.get(base + "/router/workers").json().getJsonArray("workers");
    assertThat(
            workers.stream()
                .map(
                    w ->
                        ((JsonObject) w).getString("model")
                            + "/"
                            + ((JsonObject) w).getString("worker_id")))
        .containsExactly("alpha/a1", "beta/b1");
  }

  @Test
  void aRemovedModel_isNotFound_andAnUnavailableOne_says503_theReasonOnlyToTheAdmin()
      throws Exception {
    assertThat(models.remove("beta")).isTrue();
    assertThat(models.remove("beta")).isFalse();
    assertThat(Http.post(base + "/v1/chat/completions", chat("beta")).status()).isEqualTo(404);

    models.unavailable("gamma", "tokenizer.json has another checksum");
    Http.Response response = Http.post(base + "/v1/chat/completions", chat("gamma"));
    assertThat(response.status()).isEqualTo(503);
    // the reason may name the operator's files: the client is told to come back, not why
    assertThat(response.json().getJsonObject("error").getString("message"))
        .startsWith("No worker can serve this request now; try again later (request id ")
        .doesNotContain("tokenizer.json");
    JsonObject listing = Http.get(base + "/router/workers").json();
    assertThat(listing.getJsonArray("unavailable_models").getJsonObject(0).getMap())
        .containsEntry("model", "gamma")
        .containsEntry("reason", "tokenizer.json has another checksum");
    assertThat(Http.get(base + "/v1/models").json().getJsonArray("data")).hasSize(1);

    models.forgetUnavailable("gamma");
    assertThat(Http.post(base + "/v1/chat/completions", chat("gamma")).status()).isEqualTo(404);
    assertThat(plane.sends).isEmpty();
  }
}
