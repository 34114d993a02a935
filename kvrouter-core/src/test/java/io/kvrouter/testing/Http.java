package io.kvrouter.testing;

import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Plain HTTP calls for tests that check status codes and bodies byte for byte. */
public final class Http {
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private Http() {}

  public record Response(int status, String body) {
    public JsonObject json() {
      return new JsonObject(body);
    }
  }

  public static Response get(String url) throws Exception {
    return send(HttpRequest.newBuilder(URI.create(url)).GET());
  }

  public static Response post(String url, String body) throws Exception {
    return send(
        HttpRequest.newBuilder(URI.create(url))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  public static Response postJson(String url, JsonObject body) throws Exception {
    return post(url, body.encode());
  }

  private static Response send(HttpRequest.Builder request) throws Exception {
    HttpResponse<String> response =
        CLIENT.send(
            request.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    return new Response(response.statusCode(), response.body());
  }
}
