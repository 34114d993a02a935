package io.kvrouter.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.WorkerStreamException;
import io.kvrouter.testing.FakeRequestPlane;
import io.kvrouter.testing.Futures;
import io.kvrouter.testing.Http;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a client gets when the engine reports an error for its request, as Dynamo's frontend answers
 * it: a unary request gets 500 with the engine's message; a stream that has already sent events
 * gets an event carrying {@code "error"}, then {@code data: [DONE]}. A real server over the demo
 * model; the worker is a {@link FakeRequestPlane}.
 */
class EngineErrorHttpTest {
  private static final String CHAT =
      "{\"model\":\"demo\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
          + "\"max_tokens\":8";

  private final Vertx vertx = Vertx.vertx();
  private final FakeRequestPlane plane = new FakeRequestPlane();
  private int port;

  @BeforeEach
  void start() throws Exception {
    port = DemoFrontend.start(vertx, plane);
  }

  @AfterEach
  void close() throws Exception {
    Futures.result(vertx.close());
  }

  @Test
  void unaryRequest_getsAServerErrorWithTheEnginesMessage() throws Exception {
    plane.set("w1", FakeRequestPlane.Behaviour.REPORT_ERROR);

    Http.Response response = Http.post(url(), CHAT + "}");

    assertThat(response.status()).isEqualTo(500);
    JsonObject error = response.json().getJsonObject("error");
    assertThat(error.getString("message")).contains("prompt too long");
    assertThat(error.getString("type")).isEqualTo("server_error");
  }

  @Test
  void streamThatHasStarted_getsAnErrorEventThenDone() throws Exception {
    plane.set("w1", FakeRequestPlane.Behaviour.HOLD);
    CompletableFuture<HttpResponse<InputStream>> answer =
        HttpClient.newHttpClient()
            .sendAsync(
                HttpRequest.newBuilder(URI.create(url()))
                    .timeout(Duration.ofSeconds(60))
                    .header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(CHAT + ",\"stream\":true}"))
                    .build(),
                HttpResponse.BodyHandlers.ofInputStream());
    FakeRequestPlane.Held held = plane.held.get(plane.heldInOrder.poll(30, TimeUnit.SECONDS));

    held.output();
    HttpResponse<InputStream> response = answer.get(30, TimeUnit.SECONDS);
    BufferedReader body =
        new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
    // the first event has reached the client: the stream has started
    assertThat(body.readLine()).startsWith("data: ");
    held.fail(WorkerStreamException.fromEngine("w1", "boom"));

    assertThat(response.statusCode()).isEqualTo(200);
    List<String> events = body.lines().filter(line -> !line.isBlank()).map(String::strip).toList();
    assertThat(events).last().isEqualTo("data: [DONE]");
    String error = events.get(events.size() - 2);
    assertThat(error).startsWith("data: ");
    JsonObject event = new JsonObject(error.substring("data: ".length()));
    assertThat(event.getJsonObject("error").getString("message")).contains("boom");
  }

  private String url() {
    return "http://127.0.0.1:" + port + "/v1/chat/completions";
  }
}
